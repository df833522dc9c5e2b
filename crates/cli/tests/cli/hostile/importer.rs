//! Issue 24's `openssl speed -mr` reproductions (see `hostile.rs`): rates the importer cannot
//! fit, each refused (exit 2) naming the input file; `openssl_import.rs` checks the messages.
//! And `--mtu` flags outside what a link carries, each refused naming `--mtu`
//! (`quantities.rs` checks the messages).

use super::{Case, case};

/// One `calibrate --from-openssl-speed` case on `speed.txt` holding `text`.
fn import(what: &str, text: &str) -> Case {
    Case {
        what: format!("importer: {what}"),
        args: [
            "calibrate",
            "--from-openssl-speed",
            "speed.txt",
            "--out",
            "new.toml",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        file: Some(("speed.txt".into(), text.as_bytes().to_vec())),
        names: vec!["speed.txt".into()],
        specials: false,
        must_refuse: true,
        one_is_an_answer: false,
    }
}

/// Three AES-128-GCM runs (64, 1500, 9000 B) with `mid` the 1500 B rate.
fn gcm(mid: &str) -> String {
    format!(
        "+H:64\n+F:25:AES-128-GCM:211228433.59\n+H:1500\n+F:25:AES-128-GCM:{mid}\n+H:9000\n+F:25:AES-128-GCM:5220394520.55\n"
    )
}

/// Hostile `openssl speed -mr` inputs: each must be refused.
pub(super) fn cases() -> Vec<Case> {
    vec![
        import("absurd rate drops points", &gcm("1e30")),
        import("rate overflows the fit", &gcm("1e300")),
        import("rate gives an infinite cost", &gcm("1e-320")),
        import("rate below one op per 10 s", &gcm("1e-30")),
        import("negative rate", &gcm("-5")),
        import("zero rate", &gcm("0")),
        import("nan rate", &gcm("nan")),
        import(
            "43 GB/s CBC-HMAC on one core",
            "+H:64:1500\n+F:25:AES-256-CBC-HMAC-SHA256:211228433.59:43000000000\n",
        ),
        import(
            "one block size",
            "+H:1500\n+F:25:AES-128-GCM:2727555978.26\n",
        ),
        import(
            "a size measured twice",
            "+H:64:1500\n+F:25:AES-128-GCM:2e8:2e9\n+H:1500\n+F:25:AES-128-GCM:3e9\n",
        ),
        import("block size 0", "+H:0:64\n+F:25:AES-128-GCM:1e8:2e8\n"),
        import(
            "block size 1 TiB",
            "+H:64:1099511627776\n+F:25:AES-128-GCM:1e8:2e9\n",
        ),
        import("key op 1e9 per second", "+F2:2:2048:1e9:80000\n"),
        import("key op infinite", "+F5:22:253:inf:0.000023\n"),
    ]
}

/// `--mtu` flags outside 68..=65535 B (1280 B on an IPv6 link): each must be refused naming
/// `--mtu`.
pub(super) fn mtu_cases() -> Vec<Case> {
    let tib = "1099511627776";
    let p = "calibration/dev-host-rustcrypto.toml";
    let v4 = "eth/ipv4/udp";
    let mut cases = Vec::new();
    for (protocol, mtu) in [
        ("tls13", "67"),
        ("tls13", tib),
        ("tls13", "65536"),
        ("ikev2", "40"),
        ("ikev2", "65536"),
    ] {
        cases.push(case(
            &format!("handshake {protocol} mtu {mtu}"),
            &["handshake", "--protocol", protocol, "--mtu", mtu],
            &["--mtu"],
        ));
    }
    for (stack, mtu) in [
        (v4, "40"),
        (v4, tib),
        (v4, "1500,65536"),
        ("eth/ipv6/udp", "1000"),
    ] {
        cases.push(case(
            &format!("overhead {stack} mtu {mtu}"),
            &[
                "overhead",
                "--stack",
                stack,
                "--payload",
                "100",
                "--mtu",
                mtu,
            ],
            &["--mtu"],
        ));
    }
    for mtu in ["40B", "1GB", "80B"] {
        cases.push(case(
            &format!("plan kex mtu {mtu}"),
            &[
                "plan",
                "kex",
                "--profile",
                p,
                "--ke",
                "x25519",
                "--auth",
                "ed25519",
                "--mtu",
                mtu,
            ],
            &["--mtu"],
        ));
        cases.push(case(
            &format!("init ric-restart mtu {mtu}"),
            &[
                "init",
                "ric-restart",
                "--profile",
                p,
                "--out",
                "r.toml",
                "--mtu",
                mtu,
            ],
            &["--mtu"],
        ));
    }
    cases
}
