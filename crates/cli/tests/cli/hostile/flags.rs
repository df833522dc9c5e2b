//! Hand-written hostile flags for every subcommand (see `hostile.rs`).

use super::{Case, case, repo};
use std::fs;

/// Hand-written flags for every subcommand: each must be refused (exit 2).
pub(super) fn cases() -> Vec<Case> {
    let big = "18446744073709551615";
    let huge = "99999999999999999999999999";
    let long = "x".repeat(10_000);
    let deep = vec!["a"; 30_000].join(".");
    let esc = "e2\u{1b}[31m";
    let p = "calibration/colosseum-e2.toml";
    let ph = "calibration/ofh-macsec-i9.toml";
    let mut cases = vec![
        // check and run
        case("missing file", &["check", "nope.toml"], &["nope.toml"]),
        case("a directory", &["check", "scenarios"], &["scenarios"]),
        case("dev null", &["check", "/dev/null"], &["/dev/null"]),
        case("dev zero", &["check", "/dev/zero"], &["/dev/zero"]),
        case("dev zero run", &["run", "/dev/zero"], &["/dev/zero"]),
        case("long name", &["check", &long], &[]),
        case("check empty stdin", &["check", "-"], &["<stdin>"]),
        case("run empty stdin", &["run", "-"], &["<stdin>"]),
        case(
            "run replications",
            &["run", "scenarios/mm1.toml", "--replications", big],
            &["--replications"],
        ),
        case(
            "run replications 0",
            &["run", "scenarios/mm1.toml", "--replications", "0"],
            &["--replications"],
        ),
        case(
            "run threads",
            &["run", "scenarios/mm1.toml", "--threads", big],
            &["--threads"],
        ),
        case(
            "run seed neg",
            &["run", "scenarios/mm1.toml", "--seed", "-1"],
            &["--seed"],
        ),
        case(
            "run seed huge",
            &["run", "scenarios/mm1.toml", "--seed", huge],
            &["--seed"],
        ),
        case(
            "run memory limit 0",
            &["run", "scenarios/mm1.toml", "--memory-limit", "0"],
            &["--memory-limit"],
        ),
        case(
            "check memory limit unit",
            &["check", "scenarios/mm1.toml", "--memory-limit", "2furlongs"],
            &["--memory-limit"],
        ),
        case(
            "check memory limit huge",
            &["check", "scenarios/mm1.toml", "--memory-limit", huge],
            &["--memory-limit"],
        ),
        // A scenario estimated past the limit (the scenario, the estimate, the flag).
        case(
            "run memory limit below the estimate",
            &["run", "scenarios/mm1.toml", "--memory-limit", "1MB"],
            &["scenarios/mm1.toml", "needs about", "--memory-limit 1MB"],
        ),
        case(
            "run format",
            &["run", "scenarios/mm1.toml", "--format", "xml"],
            &["--format"],
        ),
        case(
            "run out fifo",
            &["run", "scenarios/mm1.toml", "--out", "out-fifo"],
            &["--out"],
        ),
        case(
            "run out link",
            &["run", "scenarios/mm1.toml", "--out", "out-link"],
            &["--out"],
        ),
        case(
            "run out sentinel",
            &["run", "scenarios/mm1.toml", "--out", "sentinel.txt"],
            &["--out"],
        ),
        case(
            "run progress value",
            &["run", "scenarios/mm1.toml", "--progress", "sometimes"],
            &["--progress", "auto, always, never"],
        ),
        case(
            "run progress empty",
            &["run", "scenarios/mm1.toml", "--progress", ""],
            &["--progress"],
        ),
        case(
            "run progress escape",
            &["run", "scenarios/mm1.toml", "--progress", esc],
            &["--progress"],
        ),
    ];
    // overhead
    for stack in [
        "esp-tunnel(aes256-gcm,tfc=18446744073709551560)",
        "sctp(sack,gaps=4611686018427387904)",
        "esp-tunnel(aes256-gcm",
        "esp-tunnel(nope)",
        "",
        ",,,",
        "macsec(gcm-aes-128,sci=yes,sci=no)",
        "tcp+tcp+tcp+tcp",
        &format!("{}ipv4{}", "(".repeat(2000), ")".repeat(2000)),
        &vec!["ipv4"; 5000].join("+"),
        "ipv4\u{1b}[2J",
    ] {
        cases.push(case(
            "overhead stack",
            &["overhead", "--stack", stack, "--payload", "100"],
            &["--stack"],
        ));
    }
    for payload in [big, huge, "-1", "nan", "1e400", "10GB", "1Mb", "100 b"] {
        cases.push(case(
            "overhead payload",
            &["overhead", "--stack", "eth/ipv4/udp", "--payload", payload],
            &["--payload"],
        ));
    }
    for mtu in ["0", "1", big, "-5", "1e9"] {
        cases.push(case(
            "overhead mtu",
            &["overhead", "--stack", "eth/ipv4/udp", "--mtu", mtu],
            &["--mtu"],
        ));
    }
    cases.push(case(
        "overhead stack escape",
        &["overhead", "--stack", "ipv4\u{1b}[2J", "--payload", "100"],
        &["--stack"],
    ));
    // Issue 26: `overhead --pcap` at a target that is not a regular file, or with a layer that
    // is not written or not sealed: refused naming --pcap, nothing written.
    let esp = "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp";
    for target in ["out-fifo", "out-link", "."] {
        cases.push(case(
            "overhead pcap target",
            &[
                "overhead",
                "--stack",
                esp,
                "--payload",
                "100",
                "--pcap",
                target,
            ],
            &["--pcap"],
        ));
    }
    for stack in [
        "eth/ipv4/tcp/ssh(chacha20-poly1305)",
        "eth/ipv4/tcp/tls12(aes128-cbc,hmac-sha256)",
        "eth/ipv4/esp-tunnel(aes128-ccm-16)/ipv4/udp",
        "eth/macsec(gcm-aes-xpn-128,encrypt)/ecpri",
        "eth/ipv4(options=4)/udp",
    ] {
        cases.push(case(
            "overhead pcap stack",
            &[
                "overhead",
                "--stack",
                stack,
                "--payload",
                "100",
                "--pcap",
                "new.pcapng",
            ],
            &["--pcap"],
        ));
    }
    // Issue 26: `run --pcap`: a target that is not a regular file, an unknown or unwritable
    // flow, a bad limit or point, the capture flags without --pcap, and a scenario none of whose
    // flows has frames to write: refused naming the flag, nothing written.
    // A scenario of one flow with a stack (the work directory holds only the files a case brings).
    let ofh = "scenarios/pcap.toml";
    let pcap_scenario = b"[stop]\npackets = 100\n[[node]]\nname = \"a\"\nservice = { model = \"none\" }\n[[node]]\nname = \"b\"\nservice = { model = \"none\" }\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gbps\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nsource = { kind = \"poisson\", rate = \"1/us\", size = \"100B\", stack = \"eth/ipv4/udp\" }\n";
    let first_pcap_case = cases.len();
    for target in ["out-fifo", "out-link", "."] {
        cases.push(case(
            "run pcap target",
            &["run", ofh, "--pcap", target],
            &["--pcap"],
        ));
    }
    for (name, flow, scenario) in [
        ("run pcap flow unknown", "nope", ofh),
        ("run pcap flow escape", esc, ofh),
        ("run pcap flow no stack", "arrivals", "scenarios/mm1.toml"),
    ] {
        cases.push(case(
            name,
            &["run", scenario, "--pcap", "new.pcapng", "--pcap-flow", flow],
            &["--pcap-flow"],
        ));
    }
    for limit in ["0", "ten", "-1", huge] {
        cases.push(case(
            "run pcap limit",
            &["run", ofh, "--pcap", "new.pcapng", "--pcap-limit", limit],
            &["--pcap-limit"],
        ));
    }
    cases.push(case(
        "run pcap at",
        &["run", ofh, "--pcap", "new.pcapng", "--pcap-at", "both"],
        &["--pcap-at"],
    ));
    for flag in [
        ["--pcap-flow", "du"],
        ["--pcap-limit", "10"],
        ["--pcap-at", "sent"],
    ] {
        cases.push(case(
            "run pcap flag without pcap",
            &["run", ofh, flag[0], flag[1]],
            &["--pcap"],
        ));
    }
    cases.push(case(
        "run pcap nothing to write",
        &["run", "scenarios/mm1.toml", "--pcap", "new.pcapng"],
        &["--pcap"],
    ));
    for c in &mut cases[first_pcap_case..] {
        if c.args.iter().any(|a| a == ofh) {
            c.file = Some((ofh.into(), pcap_scenario.to_vec()));
        }
    }
    for iface in ["E9", "", esc, &long] {
        cases.push(case(
            "overhead interface",
            &["overhead", "--interface", iface],
            &["--interface"],
        ));
    }
    cases.push(case(
        "overhead policy",
        &[
            "overhead",
            "--stack",
            "eth/ipv4/udp",
            "--payload",
            "3000",
            "--mtu",
            "1500",
            "--policy",
            "nope",
        ],
        &["--policy"],
    ));
    // handshake
    for (flag, v) in [
        ("--chain", big),
        ("--chain", "1000000"),
        ("--chain", "-1"),
        ("--cert-bytes", big),
        ("--cert-bytes", huge),
        ("--mtu", "0"),
        ("--mtu", big),
        ("--mtu", "20"),
        ("--ke", "nope"),
        ("--ke", esc),
        ("--auth", "nope"),
        ("--ip-version", "5"),
        ("--protocol", "ssl2"),
    ] {
        cases.push(case(
            "handshake",
            &["handshake", "--protocol", "ikev2", flag, v],
            &[flag],
        ));
        cases.push(case(
            "handshake tls",
            &["handshake", "--protocol", "tls13", flag, v],
            &[flag],
        ));
    }
    // Issue 26: --pcap at a FIFO, a symbolic link, a directory or in a missing directory; with
    // TLS 1.3; a capture over MAX_PCAP_BYTES.
    for target in ["out-fifo", "out-link", "{dir}", "missing-dir/x.pcapng"] {
        cases.push(case(
            "handshake pcap",
            &["handshake", "--protocol", "ikev2", "--pcap", target],
            &["--pcap"],
        ));
    }
    cases.push(case(
        "handshake pcap tls",
        &["handshake", "--protocol", "tls13", "--pcap", "x.pcapng"],
        &["--pcap"],
    ));
    cases.push(case(
        "handshake pcap huge",
        &[
            "handshake",
            "--auth",
            "mldsa87",
            "--chain",
            "20000",
            "--mtu",
            "65535",
            "--pcap",
            "x.pcapng",
        ],
        &["--pcap"],
    ));
    // An IPv6 path below IPv6's minimum MTU (RFC 8200 §5).
    for protocol in ["ikev2", "tls13"] {
        cases.push(case(
            "handshake ipv6 mtu",
            &[
                "handshake",
                "--protocol",
                protocol,
                "--ip-version",
                "6",
                "--mtu",
                "1000",
            ],
            &["--mtu"],
        ));
    }
    // plan kex
    for (flag, v) in [
        ("--tunnels", big),
        ("--tunnels", "0"),
        ("--cores", "0"),
        ("--cores", big),
        ("--rate", "nan"),
        ("--rate", "-1"),
        ("--rate", "1e400"),
        ("--length", "1Mm"),
        ("--length", big),
        ("--mtu", "0"),
        ("--loss", "1.5"),
        ("--loss", "nan"),
        ("--loss", "-0.1"),
        ("--ke", "nope"),
        ("--profile", "missing.toml"),
        ("--profile", "/dev/zero"),
        ("--responder-profile", "/dev/zero"),
    ] {
        cases.push(case(
            "plan kex",
            &["plan", "kex", "--profile", p, flag, v],
            &[flag],
        ));
    }
    // plan fronthaul
    for (flag, v) in [
        ("--fibre", "1Mm"),
        ("--fibre", "-1km"),
        ("--fibre", "nan"),
        ("--fibre", "1e300km"),
        ("--switch-latency", "1e30s"),
        ("--switch-latency", "1MS"),
        ("--rate", "0"),
        ("--rate", "inf"),
        ("--payload", big),
        ("--payload", "0"),
        ("--cores", "0"),
        ("--du", "nope"),
        ("--ru", esc),
        ("--mode", "nope"),
        ("--compare", "nope"),
        ("--profile", "/dev/zero"),
    ] {
        cases.push(case(
            "plan fronthaul",
            &[
                "plan",
                "fronthaul",
                "--profile",
                ph,
                "--switches",
                "2",
                flag,
                v,
            ],
            &[flag],
        ));
    }
    // plan interface
    for (flag, v) in [
        ("--rate", "900Mbps"),
        ("--rate", "10GBps"),
        ("--rate", "nan"),
        ("--rate", "-1Mbps"),
        ("--rate", "1e400bps"),
        ("--sizes", "0B"),
        ("--sizes", big),
        ("--sizes", ""),
        ("--sizes", ",,,"),
        ("--cores", "0"),
        ("--cores", big),
        ("--cpu-limit", "0"),
        ("--cpu-limit", "200"),
        ("--cpu-limit", "nan"),
        ("--latency-limit", "-1ms"),
        ("--latency-limit", "1MS"),
        ("--suite", "aes-128-gcm"),
        ("--suite", esc),
        ("--interface", "E9"),
        ("--compare", "nope"),
        ("--profile", "/dev/zero"),
        ("--profile", "scenarios"),
    ] {
        let mut args = vec!["plan", "interface", "--profile", p, "--rate", "1Mbps"];
        if flag == "--rate" || flag == "--profile" {
            args.truncate(2);
            if flag == "--rate" {
                args.extend(["--profile", p]);
            } else {
                args.extend(["--rate", "1Mbps"]);
            }
        }
        args.extend([flag, v]);
        cases.push(case("plan interface", &args, &[flag]));
    }
    // sweep
    let s = "scenarios/mm1.toml";
    for (flags, names) in [
        (vec!["--set", "nokey"], vec!["--set", "nokey"]),
        (vec!["--set", "a=1", "--set", "a=2"], vec!["--set", "a"]),
        (vec!["--set", &format!("{deep}=1")], vec!["--set", "key"]),
        (vec!["--set", "stop.packets=-1"], vec!["stop.packets"]),
        (
            vec!["--set", &format!("stop.packets={big}")],
            vec!["stop.packets"],
        ),
        (vec!["--set", "stop.packets=nan"], vec!["stop.packets"]),
        (vec!["--set", "name=\u{1b}[31m"], vec!["name", "--set"]),
        (
            vec!["--vary", "stop.packets=1..2"],
            vec!["--vary", "stop.packets"],
        ),
        (vec!["--vary", "nokey"], vec!["--vary", "nokey"]),
        (
            vec!["--vary", &format!("stop.packets=1..{big}")],
            vec!["--vary", "stop.packets"],
        ),
        (vec!["--vary", "seed=0:1:0"], vec!["--vary", "seed"]),
        (
            vec!["--vary", "seed=1:100000000000:1"],
            vec!["--vary", "seed"],
        ),
        (vec!["--vary", "seed=[]"], vec!["--vary", "seed"]),
        (vec!["--vary", "seed=nan:1:2"], vec!["--vary", "seed"]),
        (vec!["--shard", "0/0"], vec!["--shard"]),
        (vec!["--shard", "3/2"], vec!["--shard"]),
        (vec!["--shard", &format!("1/{big}")], vec!["--shard"]),
        (vec!["--shard", "x"], vec!["--shard"]),
        (vec!["--jobs", "0"], vec!["--jobs"]),
        (vec!["--jobs", big], vec!["--jobs"]),
        (vec!["--out", "out-fifo"], vec!["out-fifo"]),
        (vec!["--out", "out-link"], vec!["out-link"]),
        (vec!["--out", "sentinel.txt"], vec!["sentinel.txt"]),
        // Issue 25: linked keys.
        (
            vec!["--vary-together", "stop.packets=10,20;scenario.seed=1"],
            vec!["--vary-together"],
        ),
        (
            vec!["--vary-together", "stop.packets=10,20"],
            vec!["--vary-together"],
        ),
        (
            vec!["--vary-together", "stop.packets=10,20;"],
            vec!["--vary-together"],
        ),
        (
            vec!["--vary-together", "stop.packets=10,20;nokey"],
            vec!["--vary-together"],
        ),
        (
            vec!["--vary-together", "stop.packets=10,20;stop.packets=1,2"],
            vec!["--vary-together"],
        ),
        (
            vec![
                "--vary-together",
                &format!("scenario.seed=1..{big}:1;stop.packets=1,2"),
            ],
            vec!["--vary-together"],
        ),
        (vec!["--plot-metric", "nope"], vec!["--plot-metric"]),
    ] {
        let mut args = vec!["sweep", s, "--set", "stop.packets=100"];
        if flags[0] == "--set" {
            args.truncate(2);
        }
        args.extend(flags.iter().copied());
        // Every error a flag causes names the flag (the key or value may follow).
        let _ = names;
        cases.push(case("sweep", &args, &[flags[0]]));
    }
    // Issue 25: --label names a varied key, once, with text.
    for label in [
        vec!["--label", "nokey=X"],
        vec!["--label", "scenario.seed"],
        vec!["--label", "scenario.seed= "],
        vec!["--label", "scenario.seed=a", "--label", "scenario.seed=b"],
        // Issue 37 item 5: value labels, flows, aggregates, sizes and plot formats.
        vec!["--label", "scenario.seed=7:seven"],
        vec!["--label", "scenario.seed=1:"],
        vec!["--label", "scenario.seed=1:a\u{1b}[2Jb"],
        vec!["--flows", "nosuch,uplane"],
        vec!["--aggregate", "sum"],
        vec!["--size", "0x0"],
        vec!["--size", "4294967296x1"],
        vec!["--size", "1e3x600"],
        vec!["--plot-format", "gif"],
    ] {
        let mut args = vec![
            "sweep",
            s,
            "--set",
            "stop.packets=100",
            "--vary",
            "scenario.seed=1,2",
            "--out",
            "d",
        ];
        let flag = label[0];
        args.extend(label);
        cases.push(case("sweep", &args, &[flag]));
    }
    for m in [
        "/dev/zero",
        "missing-dir",
        "sentinel.txt",
        "out-fifo",
        "scenarios",
    ] {
        cases.push(case("sweep merge", &["sweep", "--merge", m], &["--merge"]));
    }
    // reproduce
    let root = repo().to_string_lossy().to_string();
    for only in ["nope", "", esc, &long] {
        cases.push(case(
            "reproduce only",
            &["reproduce", "--only", only],
            &["--only"],
        ));
    }
    for (flag, v) in [
        ("--write-docs", "out-fifo"),
        ("--write-docs", "out-link"),
        ("--plots", "sentinel.txt"),
        ("--root", "missing-dir"),
        ("--root", "/dev/zero"),
        ("--format", "xml"),
        ("--progress", "yes"),
        ("--progress", big),
    ] {
        let mut args = vec!["reproduce", "--only", "e2_sack", flag, v];
        if flag != "--root" {
            args.extend(["--root", &root]);
        }
        cases.push(case("reproduce", &args, &[flag]));
    }
    // calibrate: refused before measuring anything
    for (flags, names) in [
        (vec!["--only", "nope", "--quick"], vec!["--only", "nope"]),
        (
            vec!["--only", "aes-128-gcm", "--quick"],
            vec!["--only", "aes-128-gcm"],
        ),
        (
            vec!["--only", esc, "--quick"],
            vec!["--only", "selects no operation"],
        ),
        (vec!["--implementation", "nope"], vec!["--implementation"]),
        (vec!["--from-openssl-speed", "/dev/zero"], vec!["/dev/zero"]),
        (
            vec!["--from-openssl-speed", "missing.txt"],
            vec!["missing.txt"],
        ),
        (
            vec!["--from-openssl-speed", "sentinel.txt"],
            vec!["sentinel.txt"],
        ),
        (vec!["--from-openssl-speed", "out-fifo"], vec!["out-fifo"]),
        (vec!["--from-openssl-speed", "scenarios"], vec!["scenarios"]),
        (
            vec![
                "--from-openssl-speed",
                "calibration/dev-host-openssl.speed.txt",
                "--out",
                "out-fifo",
            ],
            vec!["out-fifo"],
        ),
        (
            vec![
                "--from-openssl-speed",
                "calibration/dev-host-openssl.speed.txt",
                "--out",
                "out-link",
            ],
            vec!["out-link"],
        ),
    ] {
        let mut args = vec!["calibrate"];
        args.extend(flags.iter().copied());
        let _ = names;
        let flag = if flags.contains(&"--out") {
            "--out"
        } else {
            flags[0]
        };
        cases.push(case("calibrate", &args, &[flag]));
    }
    // live: refused before any socket is opened
    for (flag, v) in [
        ("--pings", big),
        ("--pings", "0"),
        ("--pings", "-1"),
        ("--rounds", big),
        ("--rounds", "0"),
        ("--sizes", "0"),
        ("--sizes", "7"),
        ("--sizes", "9001"),
        ("--sizes", big),
        ("--sizes", ""),
        ("--sizes", "1,,2"),
        ("--mtu", "0"),
        ("--mtu", big),
        ("--mtu", "-1"),
        ("--duration-ms", "0"),
        ("--duration-ms", big),
        ("--megabytes", "0"),
        ("--megabytes", big),
        ("--protection", "nope"),
        ("--protection", esc),
        ("--experiment", "nope"),
        ("--transport", "nope"),
        ("--format", "xml"),
    ] {
        cases.push(case("live", &["live", flag, v], &[flag]));
    }
    // --tolerance: a bare number, a negative, a huge value (with --compare, refused by the
    // parser before any measurement), and a valid one without --compare.
    for v in ["25", "-1%", "1e10%", big, "%"] {
        cases.push(case(
            "live",
            &["live", "--compare", "--tolerance", v],
            &["--tolerance"],
        ));
    }
    cases.push(case(
        "live",
        &["live", "--tolerance", "25%"],
        &["--tolerance"],
    ));
    // Issue 26: `live --pcap` at a target that is not a regular file (refused before any
    // socket is opened), a bad limit, and the limit without --pcap: refused naming the flag.
    for target in ["out-fifo", "out-link", "."] {
        cases.push(case(
            "live pcap target",
            &["live", "--experiment", "rtt", "--quick", "--pcap", target],
            &["--pcap"],
        ));
    }
    for limit in ["0", "ten", "-1", huge] {
        cases.push(case(
            "live pcap limit",
            &["live", "--pcap", "new.pcapng", "--pcap-limit", limit],
            &["--pcap-limit"],
        ));
    }
    cases.push(case(
        "live pcap limit without pcap",
        &["live", "--pcap-limit", "10"],
        &["--pcap"],
    ));
    cases.extend(inapplicable());
    for c in &mut cases {
        c.specials = true;
    }
    // The sentinel and the input must also survive: check them as their own cases too.
    let scenario = fs::read(repo().join("scenarios/mm1.toml")).expect("mm1");
    for c in &mut cases {
        if c.args.iter().any(|a| a == "scenarios/mm1.toml") {
            c.file = Some(("scenarios/mm1.toml".into(), scenario.clone()));
        }
    }
    cases
}

/// Issue 14: a flag with no effect in the chosen mode is refused, naming the flag (and its value
/// is validated whether or not the mode uses it).
fn inapplicable() -> Vec<Case> {
    let big = "18446744073709551615";
    let p = "calibration/colosseum-e2.toml";
    let ph = "calibration/ofh-macsec-i9.toml";
    let speed = "calibration/dev-host-openssl.speed.txt";
    let stack = ["overhead", "--stack", "eth/ipv4/udp", "--payload", "3000"];
    let mut cases = Vec::new();
    let mut add = |args: Vec<&str>, flag: &str| {
        cases.push(case("inapplicable", &args, &[flag]));
    };
    // overhead: --interface prints a catalogue row: no payload, no splitting.
    for (flag, v) in [
        ("--policy", "nope"),
        ("--policy", "even"),
        ("--ipsec-fragment", big),
        ("--ipsec-fragment", "before"),
        ("--payload", "100"),
        ("--mtu", "1500"),
    ] {
        add(vec!["overhead", "--interface", "E2", flag, v], flag);
    }
    add(
        vec!["overhead", "--interface", "E2", "--ip-fragment"],
        "--ip-fragment",
    );
    // Issue 26: a capture is of a stack's frames, split by a policy (not IP or IPsec fragments).
    add(
        vec!["overhead", "--interface", "E2", "--pcap", "new.pcapng"],
        "--pcap",
    );
    add(
        [
            &stack[..],
            &["--mtu", "1500", "--ip-fragment", "--pcap", "new.pcapng"],
        ]
        .concat(),
        "--pcap",
    );
    add(
        vec![
            "overhead",
            "--stack",
            "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp",
            "--payload",
            "3000",
            "--mtu",
            "1500",
            "--ipsec-fragment",
            "after",
            "--pcap",
            "new.pcapng",
        ],
        "--pcap",
    );
    // A split policy does nothing without --mtu or with another splitting method.
    add([&stack[..], &["--policy", "even"]].concat(), "--policy");
    add(
        [
            &stack[..],
            &["--mtu", "1500", "--ip-fragment", "--policy", "even"],
        ]
        .concat(),
        "--policy",
    );
    add(
        [&stack[..], &["--ipsec-fragment", "after"]].concat(),
        "--mtu",
    );
    add(
        [&stack[..], &["--mtu", "1500", "--ipsec-fragment", "nope"]].concat(),
        "--ipsec-fragment",
    );
    // handshake: --cipher and --no-ike-fragmentation are IKEv2's; a chain needs certificates.
    for extra in [
        vec!["--cipher", "nope"],
        vec!["--cipher", "aes256-sha256"],
        vec!["--no-ike-fragmentation"],
    ] {
        let mut args = vec!["handshake", "--protocol", "tls13"];
        args.extend(extra.iter().copied());
        add(args, extra[0]);
    }
    for (flags, flag) in [
        (&["--protocol", "ikev2", "--cipher", "nope"][..], "--cipher"),
        (&["--auth", "psk", "--chain", "2"], "--chain"),
        (&["--auth", "psk", "--cert-bytes", "900"], "--cert-bytes"),
        (&["--chain", "2", "--cert-bytes", "900"], "--chain"),
        (&["--ip-version", "5"], "--ip-version"),
    ] {
        add([&["handshake"][..], flags].concat(), flag);
    }
    // plan fronthaul: no switches, no switch latency; --du/--ru detail the table only.
    for v in ["1MS", "1us", "0us"] {
        add(
            vec!["plan", "fronthaul", "--profile", ph, "--switch-latency", v],
            "--switch-latency",
        );
    }
    add(
        vec![
            "plan",
            "fronthaul",
            "--profile",
            ph,
            "--du",
            "A",
            "--ru",
            "O",
            "--format",
            "json",
        ],
        "--du",
    );
    add(
        vec![
            "plan",
            "interface",
            "--profile",
            p,
            "--rate",
            "1Mbps",
            "--sizes",
            "0B",
        ],
        "--sizes",
    );
    // plan fronthaul under load (issue 25): --dus/--rus-per-du need --load; counts in range; a load the path cannot carry.
    for (flags, flag) in [
        (&["--dus", "4"][..], "--load"),
        (&["--rus-per-du", "4"][..], "--load"),
        (&["--load", "200Mbps", "--dus", "0"][..], "--dus"),
        (
            &["--load", "200Mbps", "--rus-per-du", big][..],
            "--rus-per-du",
        ),
        (&["--load", "0bps"][..], "--load"),
        (&["--load", "200"][..], "--load"),
        (&["--load", "30Gbps", "--switches", "1"][..], "--rus-per-du"),
    ] {
        add(
            [&["plan", "fronthaul", "--profile", ph][..], flags].concat(),
            flag,
        );
    }
    // sweep: with --out the results go to files, so --format does nothing.
    add(
        vec![
            "sweep",
            "scenarios/mm1.toml",
            "--set",
            "stop.packets=100",
            "--out",
            "d",
            "--format",
            "json",
        ],
        "--format",
    );
    add(vec!["sweep", "--merge", "d", "--jobs", "2"], "--jobs");
    // sweep: plots exist only with --out; a linked group is not merged, it is run.
    add(
        vec!["sweep", "scenarios/mm1.toml", "--label", "scenario.seed=x"],
        "--label",
    );
    add(
        vec!["sweep", "scenarios/mm1.toml", "--plot-metric", "throughput"],
        "--plot-metric",
    );
    add(
        vec![
            "sweep",
            "--merge",
            "d",
            "--vary-together",
            "stop.packets=1,2;scenario.seed=1,2",
        ],
        "--vary-together",
    );
    // Values refused with their flag's name where the library's message named something else.
    add(
        vec!["calibrate", "--name", " ", "--from-openssl-speed", speed],
        "--name",
    );
    add(
        vec![
            "sweep",
            "scenarios/mm1.toml",
            "--shard",
            "0/2000000",
            "--out",
            "d",
        ],
        "--shard",
    );
    add(
        vec![
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-aws-lc.toml",
            "--auth",
            "nope",
        ],
        "--auth",
    );
    add(
        vec!["handshake", "--protocol", "tls13", "--chain", "100000"],
        "--chain",
    );
    // calibrate: importing measures nothing, so the measuring flags do nothing.
    for extra in [
        vec!["--quick"],
        vec!["--only", "aes128-gcm"],
        vec!["--implementation", "aws-lc-rs"],
    ] {
        let mut args = vec![
            "calibrate",
            "--from-openssl-speed",
            speed,
            "--out",
            "n.toml",
        ];
        args.extend(extra.iter().copied());
        add(args, "--from-openssl-speed");
    }
    // validate and calibrate --run (issue 23): the measurement files are refused naming
    // themselves; flags that do not go together are refused naming one of them. None of these
    // runs a real implementation.
    let ss = "calibration/host-2026-11-26-strongswan.measurements.json";
    add(
        vec!["validate", "strongswan", "--measurements", "/dev/zero"],
        "/dev/zero",
    );
    add(
        vec!["validate", "strongswan", "--measurements", "scenarios"],
        "scenarios",
    );
    add(
        vec!["validate", "strongswan", "--measurements", "nope.json"],
        "nope.json",
    );
    add(
        vec![
            "validate",
            "strongswan",
            "--measurements",
            "calibration/colosseum-e2.toml",
        ],
        "colosseum-e2.toml",
    );
    add(
        vec!["validate", "tls", "--measurements", ss],
        "host-2026-11-26-strongswan.measurements.json",
    );
    add(
        vec!["validate", "strongswan", "--measurements", ss, "--full"],
        "--full",
    );
    add(
        vec![
            "validate",
            "strongswan",
            "--measurements",
            ss,
            "--save-measurements",
            "m.json",
        ],
        "--save-measurements",
    );
    add(
        vec![
            "validate",
            "strongswan",
            "--measurements",
            ss,
            "--format",
            "yaml",
        ],
        "--format",
    );
    add(vec!["validate", "nope"], "nope");
    add(
        vec!["calibrate", "--run", "nope", "--out", "n.toml"],
        "--run",
    );
    add(
        vec![
            "calibrate",
            "--run",
            "strongswan",
            "--quick",
            "--out",
            "n.toml",
        ],
        "--quick",
    );
    add(
        vec!["calibrate", "--measurements", ss, "--out", "n.toml"],
        "--run",
    );
    add(
        vec![
            "calibrate",
            "--run",
            "openssl-tls",
            "--measurements",
            ss,
            "--out",
            "n.toml",
        ],
        "host-2026-11-26-strongswan.measurements.json",
    );
    cases
}
