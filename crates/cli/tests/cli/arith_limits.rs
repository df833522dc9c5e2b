//! Issue 14, class 1, as a user meets it: the examples that printed a wrapped size, accepted an
//! impossible fragment count or panicked now exit 2 with a message naming the value and the
//! allowed range, quickly and without allocating the impossible.

use std::process::Command;

/// Runs oransim and returns (exit code, stderr), in cargo's working directory for a test
/// (`crates/cli`): the arguments name no file, and every case is refused before anything is
/// written (issue 39 #10).
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args)
        .output()
        .expect("run oransim");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_refused(args: &[&str], wants: &[&str]) {
    let (code, err) = refused(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for w in wants {
        assert!(err.contains(w), "{args:?}: want `{w}` in: {err}");
    }
}

#[test]
fn handshake_counts_and_sizes_out_of_range_exit_2() {
    // Panicked (capacity overflow) before.
    assert_refused(
        &["handshake", "--chain", "18446744073709551615"],
        &["--chain", "allowed 0..=2796202"],
    );
    // 627,577 IKE fragments before; Total Fragments is 16 bits.
    assert_refused(&["handshake", "--chain", "1000000"], &["Total Fragments"]);
    assert_refused(
        &["handshake", "--protocol", "tls13", "--chain", "2796202"],
        &["24-bit certificate_list"],
    );
    // A 12-byte Certificate before (for 2^64 - 1 bytes; the flag parser now stops that value,
    // so a 20 MB certificate shows the protocol bound).
    assert_refused(
        &[
            "handshake",
            "--protocol",
            "tls13",
            "--cert-bytes",
            "20000000",
        ],
        &["24-bit cert_data", "16777215"],
    );
    assert_refused(
        &["handshake", "--cert-bytes", "70000"],
        &["CERT[0]", "16-bit IKEv2 payload length"],
    );
}

#[test]
fn overhead_parameters_out_of_range_exit_2() {
    // A 14-byte frame before.
    assert_refused(
        &[
            "overhead",
            "--stack",
            "eth/ipv4/udp/esp-tunnel(aes256-gcm,tfc=18446744073709551560)/ipv4/udp",
        ],
        &["tfc=18446744073709551560", "0..=65535"],
    );
    // 62 B, the size of a SACK without gaps, before.
    assert_refused(
        &[
            "overhead",
            "--stack",
            "eth/ipv4/sctp(sack,gaps=4611686018427387904)",
        ],
        &["gaps", "at most 16379"],
    );
    assert_refused(
        &[
            "overhead",
            "--stack",
            "eth",
            "--payload",
            "4000000000",
            "--mtu",
            "68",
        ],
        &["1048576 frames"],
    );
}
