/* GMAC-AES-128 timed through OpenSSL's libcrypto, for scripts/openssl-speed.sh.
 *
 * `openssl speed` (3.0) has no GMAC mode and `openssl mac GMAC` computes one MAC per process,
 * so this times the operation per packet the way `openssl speed -aead` times an AEAD: per frame,
 * set the IV, pass the whole frame as additional data (no plaintext: MACsec integrity only,
 * IEEE 802.1AE-2018 §14.5, and what Linux MACsec asks of the kernel's gcm(aes) with no
 * payload), finish and take (seal) or check (open) the 16-byte tag; repeated for SECONDS of
 * this process's CPU time (openssl speed divides by CPU user time too).
 *
 * Prints `openssl speed -mr` lines so `oransim calibrate --from-openssl-speed` reads them:
 *   +H:<bytes>
 *   +F:0:GMAC-AES-128:<bytes per second>
 * and `# oransim: decrypt` before the open runs.
 *
 * Build: cc -O2 -o openssl-gmac openssl-gmac.c -lcrypto
 * Run:   ./openssl-gmac SECONDS BYTES...
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Bytes per second of GMAC over `len`-byte frames for `seconds` of CPU time. */
static double rate(EVP_CIPHER_CTX *ctx, int open, unsigned char *buf, int len, double seconds) {
    static const unsigned char iv[12] = {0};
    unsigned char tag[16] = {0};
    int outl = 0;
    long count = 0;
    double start = cpu_seconds(), now;
    do {
        for (int i = 0; i < 256; i++) {
            if (open) {
                EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, iv);
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag);
                EVP_DecryptUpdate(ctx, NULL, &outl, buf, len);
                /* fails on the fake tag, as openssl speed's -decrypt does: the work is done */
                (void)EVP_DecryptFinal_ex(ctx, buf, &outl);
            } else {
                EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv);
                EVP_EncryptUpdate(ctx, NULL, &outl, buf, len);
                EVP_EncryptFinal_ex(ctx, buf, &outl);
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
            }
        }
        count += 256;
        now = cpu_seconds();
    } while (now - start < seconds);
    return (double)count * len / (now - start);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SECONDS BYTES...\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[1]);
    static const unsigned char key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (int open = 0; open <= 1; open++) {
        if (open)
            printf("# oransim: decrypt\n");
        for (int a = 2; a < argc; a++) {
            int len = atoi(argv[a]);
            unsigned char *buf = calloc((size_t)len + 16, 1);
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            if (!buf || !ctx || !EVP_CipherInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, NULL, !open)) {
                fprintf(stderr, "cannot set up AES-128-GCM\n");
                return 1;
            }
            printf("+H:%d\n+F:0:GMAC-AES-128:%.2f\n", len, rate(ctx, open, buf, len, seconds));
            fflush(stdout);
            EVP_CIPHER_CTX_free(ctx);
            free(buf);
        }
    }
    printf("# oransim: encrypt\n");
    return 0;
}
