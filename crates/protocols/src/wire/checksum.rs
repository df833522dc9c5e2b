//! The checksums transport headers carry: the Internet checksum (RFC 1071) over a pseudo-header
//! and a segment (TCP, RFC 9293 §3.1; UDP, RFC 768 and RFC 8200 §8.1), and CRC32c (SCTP,
//! RFC 9260 §6.8 and Appendix A).

/// The addresses of the IP header a transport checksum covers (its pseudo-header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pseudo {
    /// IPv4: source, destination (RFC 9293 §3.1).
    V4([u8; 4], [u8; 4]),
    /// IPv6: source, destination (RFC 8200 §8.1).
    V6([u8; 16], [u8; 16]),
}

/// Ones' complement sum of `data`'s 16-bit big-endian words (an odd byte is padded with a
/// zero), folded into 16 bits, added to `sum`.
fn add(mut sum: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
        sum = (sum & 0xffff) + (sum >> 16);
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum
}

/// The Internet checksum of `segment` (its checksum field zero) under the pseudo-header of
/// `ip` with upper-layer `protocol`: the value to write into the checksum field. A segment
/// longer than 2^32 - 1 bytes cannot occur (IP length fields are 16 bits; the length is
/// truncated to 32 bits as RFC 8200 §8.1's field is).
pub fn transport(ip: Pseudo, protocol: u8, segment: &[u8]) -> u16 {
    let len = segment.len() as u32;
    let mut sum = match ip {
        Pseudo::V4(s, d) => {
            let sum = add(add(0, &s), &d);
            add(sum, &[0, protocol, (len >> 8) as u8, len as u8])
        }
        Pseudo::V6(s, d) => {
            let sum = add(add(0, &s), &d);
            add(add(sum, &len.to_be_bytes()), &[0, 0, 0, protocol])
        }
    };
    sum = add(sum, segment);
    !(sum as u16)
}

/// CRC32c (Castagnoli, reflected polynomial 0x82F63B78) of `data`, as SCTP computes it over
/// a packet whose checksum field is zero (RFC 9260 Appendix A); the result is written in the
/// checksum field as its little-endian bytes would be read by RFC 9260's reference code, i.e.
/// [`crc32c`]`(..).to_le_bytes()`.
pub(crate) fn crc32c(data: &[u8]) -> u32 {
    CRC32C.checksum(data)
}

/// CRC-32C (Castagnoli, reflected, `!0` in and out: the catalogue's `CRC-32/ISCSI`), from the
/// `crc` crate's tables, 16 bytes a step (slice-by-16).
const CRC32C: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The standard check value of CRC-32C over "123456789" (RFC 3720 §B.4 catalogue).
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        // RFC 3720 §B.4: 32 bytes of zeros.
        assert_eq!(crc32c(&[0u8; 32]).to_le_bytes(), [0xaa, 0x36, 0x91, 0x8a]);
    }

    #[test]
    fn a_checksummed_segment_sums_to_zero() {
        let ip = Pseudo::V6([0x20; 16], [0x30; 16]);
        let mut seg = vec![1u8, 2, 3, 4, 5, 6, 0, 0, 9];
        let c = transport(ip, 17, &seg);
        seg[6..8].copy_from_slice(&c.to_be_bytes());
        assert_eq!(transport(ip, 17, &seg), 0);
        let ip = Pseudo::V4([10, 0, 0, 1], [10, 0, 0, 2]);
        seg[6..8].copy_from_slice(&[0, 0]);
        let c = transport(ip, 6, &seg);
        seg[6..8].copy_from_slice(&c.to_be_bytes());
        assert_eq!(transport(ip, 6, &seg), 0);
    }
}
