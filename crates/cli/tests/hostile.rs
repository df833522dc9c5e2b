//! Issue 14's hostile-input suite: mutated scenario and profile files and hand-written flags for
//! every subcommand, each run through the real binary. Every case must end with exit 0 (a
//! mutation may leave a valid file) or exit 2 with stderr starting `error:` and naming the input;
//! never a panic, an abort, a signal or a hang (killed after [`TIMEOUT`]); within an address-space
//! limit of [`RLIMIT_AS_KIB`]; and no file that existed before the case may be replaced, changed
//! or removed. The cases are generated from a fixed seed, so a failure reproduces: the report
//! prints the exact command. docs/hardening.md describes the suite and its bounds.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A case still running after this long is a hang.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Address-space limit of every case [KiB]: 2 GiB. The largest honest case here (a small
/// scenario, a profile, a refused flag) stays under 100 MiB of RSS; the debug binary maps about
/// 50 MiB, and each thread reserves an 8 MiB stack plus a 64 MiB malloc arena on a 2-core host,
/// so 2 GiB leaves room for those reservations while an unbounded allocation (a count read as a
/// `Vec` length, `/dev/zero` read whole) still fails instead of eating the machine.
const RLIMIT_AS_KIB: u64 = 2 * 1024 * 1024;
/// The fixed seed of the mutations.
const SEED: u64 = 0x0A4A_5111;

/// splitmix64: a small, well-mixed deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A hostile value for the right-hand side of a `key = value` line.
fn hostile_value(rng: &mut Rng) -> String {
    let nested = format!("{}1{}", "[".repeat(3000), "]".repeat(3000));
    let values = [
        "18446744073709551616".to_string(),
        "99999999999999999999999999999".to_string(),
        "-1".to_string(),
        "-9223372036854775808".to_string(),
        "nan".to_string(),
        "inf".to_string(),
        "-inf".to_string(),
        "\"NaN\"".to_string(),
        "\"1e400\"".to_string(),
        "\"10GBps\"".to_string(),
        "\"1Mm\"".to_string(),
        "\"5MS\"".to_string(),
        "\"1e30ns\"".to_string(),
        "\"\"".to_string(),
        "\"\\u001b[31mred\"".to_string(),
        "\"a\\u0000b\"".to_string(),
        format!("\"{}\"", "x".repeat(10_000)),
        nested,
        "0".to_string(),
        "1e308".to_string(),
    ];
    values[rng.below(values.len())].clone()
}

/// One deterministic mutation of a text file.
fn mutate(text: &str, rng: &mut Rng) -> (String, Vec<u8>) {
    let lines: Vec<&str> = text.lines().collect();
    let i = rng.below(lines.len());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.below(6) {
        0 => {
            out.remove(i);
            (format!("delete line {}", i + 1), join(&out))
        }
        1 => {
            out.insert(i, lines[i].to_string());
            (format!("duplicate line {}", i + 1), join(&out))
        }
        2 | 3 => {
            // Replace a value: the first `=` line at or after i.
            let j = (i..lines.len())
                .chain(0..i)
                .find(|&j| lines[j].contains('=') && !lines[j].trim_start().starts_with('#'))
                .unwrap_or(i);
            let v = hostile_value(rng);
            let line = lines[j];
            out[j] = match line.find('=') {
                Some(k) => format!("{} {}", &line[..=k], v),
                None => v.clone(),
            };
            let shown: String = v.chars().take(24).collect();
            (format!("line {}: value {shown:?}", j + 1), join(&out))
        }
        4 => {
            let bytes = text.as_bytes();
            let at = rng.below(bytes.len());
            (format!("truncate at byte {at}"), bytes[..at].to_vec())
        }
        _ => {
            let mut bytes = text.as_bytes().to_vec();
            let at = rng.below(bytes.len());
            bytes.insert(at, 0);
            (format!("NUL at byte {at}"), bytes)
        }
    }
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

/// One case: arguments (with `{dir}` standing for the case's working directory), the file it
/// writes first (relative path, bytes), and what stderr must name on exit 2.
struct Case {
    what: String,
    args: Vec<String>,
    file: Option<(String, Vec<u8>)>,
    names: Vec<String>,
    /// Also prepare `out-fifo` (a FIFO) and `out-link` (a symlink to the sentinel).
    specials: bool,
    /// Exit 0 is a failure too: the case is hostile by construction (every flag case).
    must_refuse: bool,
}

fn case(what: &str, args: &[&str], names: &[&str]) -> Case {
    // A negative value is passed as `--flag=-1`, or the parser would take it for a flag.
    let mut joined: Vec<String> = Vec::new();
    for a in args {
        let negative =
            a.starts_with('-') && a[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
        match joined.last_mut() {
            Some(flag) if negative && flag.starts_with("--") && !flag.contains('=') => {
                flag.push('=');
                flag.push_str(a);
            }
            _ => joined.push(a.to_string()),
        }
    }
    Case {
        what: what.to_string(),
        args: joined,
        file: None,
        names: names.iter().map(|s| s.to_string()).collect(),
        specials: false,
        must_refuse: true,
    }
}

/// What a file looked like: its type, size, modification and contents.
#[derive(PartialEq, Debug)]
struct Snap {
    kind: &'static str,
    ino: u64,
    bytes: Vec<u8>,
}

fn snapshot(dir: &Path, out: &mut BTreeMap<PathBuf, Snap>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(m) = fs::symlink_metadata(&p) else {
            continue;
        };
        let t = m.file_type();
        let (kind, bytes) = if t.is_symlink() {
            (
                "symlink",
                fs::read_link(&p)
                    .unwrap_or_default()
                    .into_os_string()
                    .into_encoded_bytes(),
            )
        } else if t.is_fifo() {
            ("fifo", Vec::new())
        } else if t.is_dir() {
            snapshot(&p, out);
            ("dir", Vec::new())
        } else {
            ("file", fs::read(&p).unwrap_or_default())
        };
        out.insert(
            p,
            Snap {
                kind,
                ino: m.ino(),
                bytes,
            },
        );
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Run one case; `Err` describes the failure with the command that reproduces it.
fn run_case(c: &Case, calibration: bool) -> Result<(), String> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("oransim-hostile-{}-{n}", std::process::id()));
    let work = root.join("work");
    fs::create_dir_all(work.join("scenarios")).map_err(|e| e.to_string())?;
    let result = run_in(c, calibration, &root, &work);
    let _ = fs::remove_dir_all(&root);
    result
}

fn run_in(c: &Case, calibration: bool, root: &Path, work: &Path) -> Result<(), String> {
    fs::write(work.join("sentinel.txt"), b"must survive\n").map_err(|e| e.to_string())?;
    if calibration {
        let cal = work.join("calibration");
        fs::create_dir_all(&cal).map_err(|e| e.to_string())?;
        for e in fs::read_dir(repo().join("calibration")).map_err(|e| e.to_string())? {
            let e = e.map_err(|e| e.to_string())?;
            fs::copy(e.path(), cal.join(e.file_name())).map_err(|e| e.to_string())?;
        }
    }
    if let Some((rel, bytes)) = &c.file {
        let p = work.join(rel);
        fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        fs::write(&p, bytes).map_err(|e| e.to_string())?;
    }
    if c.specials {
        std::os::unix::fs::symlink(work.join("sentinel.txt"), work.join("out-link"))
            .map_err(|e| e.to_string())?;
        let ok = Command::new("mkfifo")
            .arg(work.join("out-fifo"))
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            return Err("mkfifo failed".into());
        }
    }
    let mut before = BTreeMap::new();
    snapshot(work, &mut before);

    let dir = work.to_string_lossy().to_string();
    let args: Vec<String> = c.args.iter().map(|a| a.replace("{dir}", &dir)).collect();
    let out_path = root.join("stdout");
    let err_path = root.join("stderr");
    let shown = format!(
        "[{}] (cd {dir} && oransim {})",
        c.what,
        args.iter()
            .map(|a| if a.len() > 60 {
                format!("{}...", &a[..60])
            } else {
                a.clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {RLIMIT_AS_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_oransim"))
        .args(&args)
        .current_dir(work)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).map_err(|e| e.to_string())?)
        .stderr(fs::File::create(&err_path).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("{shown}: spawn: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown}: hang: still running after {TIMEOUT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("{shown}: wait: {e}")),
        }
    };
    let err = String::from_utf8_lossy(&fs::read(&err_path).unwrap_or_default()).to_string();
    let first: String = err
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join(" | ")
        .chars()
        .take(300)
        .collect();
    let mut problems = Vec::new();
    match status.code() {
        Some(0) if c.must_refuse => problems.push("exit 0: accepted".to_string()),
        Some(0) => {}
        Some(2) => {
            if !err.starts_with("error:") {
                problems.push("exit 2 but stderr does not start with `error:`".to_string());
            }
            if !c.names.is_empty() && !c.names.iter().any(|n| err.contains(n.as_str())) {
                problems.push(format!("stderr names none of {:?}", c.names));
            }
        }
        Some(code) => problems.push(format!("exit {code}")),
        None => problems.push(format!("killed by a signal ({status})")),
    }
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        problems.push("panicked".to_string());
    }
    let mut after = BTreeMap::new();
    snapshot(work, &mut after);
    for (p, snap) in &before {
        match after.get(p) {
            None => problems.push(format!("{} was removed", p.display())),
            Some(now) if now != snap => problems.push(format!(
                "{} was replaced or changed ({} -> {})",
                p.display(),
                snap.kind,
                now.kind
            )),
            Some(_) => {}
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{shown}: {}; stderr: {first}", problems.join("; ")))
    }
}

/// Run every case, print how many ran, and fail with every failure listed together.
fn run_all(group: &str, cases: &[Case], calibration: bool) {
    let start = Instant::now();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| run_case(c, calibration).err())
        .collect();
    println!(
        "hostile {group}: {} case(s) ran in {:.1} s, {} failed",
        cases.len(),
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile {group} case(s) failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn files(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(repo().join(dir))
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// Mutated scenarios, validated with `check` (12 mutations of each of the 15 files).
#[test]
fn mutated_scenarios_are_refused_cleanly() {
    let mut rng = Rng(SEED);
    let mut cases = Vec::new();
    for path in files("scenarios", ".toml") {
        let text = fs::read_to_string(&path).expect("read scenario");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for _ in 0..12 {
            let (what, bytes) = mutate(&text, &mut rng);
            let rel = format!("scenarios/{name}");
            cases.push(Case {
                what: format!("{name}: {what}"),
                args: vec!["check".into(), rel.clone()],
                file: Some((rel, bytes)),
                names: vec![name.clone(), "calibration/".into()],
                specials: false,
                must_refuse: false,
            });
        }
    }
    run_all("scenario", &cases, true);
}

/// Mutated calibration profiles through `plan interface` / `plan kex`, and mutated OpenSSL
/// speed outputs and sample files through `calibrate --from-openssl-speed`.
#[test]
fn mutated_profiles_are_refused_cleanly() {
    let mut rng = Rng(SEED ^ 0x5EED);
    let mut cases = Vec::new();
    for path in files("calibration", ".toml") {
        let text = fs::read_to_string(&path).expect("read profile");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for k in 0..10 {
            let (what, bytes) = mutate(&text, &mut rng);
            let rel = format!("p/{name}");
            let args: Vec<String> = if k % 2 == 0 {
                ["plan", "interface", "--profile", &rel, "--rate", "1Mbps"]
            } else {
                ["plan", "fronthaul", "--profile", &rel, "--rate", "1Gbps"]
            }
            .iter()
            .map(|s| s.to_string())
            .collect();
            cases.push(Case {
                what: format!("{name}: {what}"),
                args,
                file: Some((rel, bytes)),
                names: vec![name.clone(), "--".into()],
                specials: false,
                must_refuse: false,
            });
        }
    }
    for suffix in [".speed.txt", ".samples.csv"] {
        for path in files("calibration", suffix) {
            let text = fs::read_to_string(&path).expect("read");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            for _ in 0..8 {
                let (what, bytes) = mutate(&text, &mut rng);
                let rel = format!("p/{name}");
                cases.push(Case {
                    what: format!("{name}: {what}"),
                    args: [
                        "calibrate",
                        "--from-openssl-speed",
                        &rel,
                        "--out",
                        "new.toml",
                    ]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                    file: Some((rel, bytes)),
                    names: vec![name.clone()],
                    specials: false,
                    must_refuse: false,
                });
            }
        }
    }
    run_all("profile", &cases, false);
}

/// Hand-written flags for every subcommand.
#[test]
fn hostile_flags_are_refused_cleanly() {
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
            "run format",
            &["run", "scenarios/mm1.toml", "--format", "xml"],
            &["--format"],
        ),
        case(
            "run out fifo",
            &["run", "scenarios/mm1.toml", "--out", "out-fifo"],
            &["out-fifo"],
        ),
        case(
            "run out link",
            &["run", "scenarios/mm1.toml", "--out", "out-link"],
            &["out-link"],
        ),
        case(
            "run out sentinel",
            &["run", "scenarios/mm1.toml", "--out", "sentinel.txt"],
            &["sentinel.txt"],
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
            &["--stack", "stack"],
        ));
    }
    for payload in [big, huge, "-1", "nan", "1e400", "10GB", "1Mb", "100 b"] {
        cases.push(case(
            "overhead payload",
            &["overhead", "--stack", "eth/ipv4/udp", "--payload", payload],
            &["--payload", "payload"],
        ));
    }
    for mtu in ["0", "1", big, "-5", "1e9"] {
        cases.push(case(
            "overhead mtu",
            &["overhead", "--interface", "E2", "--mtu", mtu],
            &["--mtu", "mtu", "MTU"],
        ));
    }
    for iface in ["E9", "", esc, &long] {
        cases.push(case(
            "overhead interface",
            &["overhead", "--interface", iface],
            &["--interface", "interface"],
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
        &["--policy", "policy"],
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
            &[flag, &flag[2..], "MTU", "ertificate", "IP version"],
        ));
        cases.push(case(
            "handshake tls",
            &["handshake", "--protocol", "tls13", flag, v],
            &[flag, &flag[2..], "MTU", "ertificate", "IP version"],
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
            &[flag, &flag[2..], v],
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
            // A fibre length is checked as the link's `length`.
            &[flag, &flag[2..], v, "length"],
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
        cases.push(case("plan interface", &args, &[flag, &flag[2..], v]));
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
    ] {
        let mut args = vec!["sweep", s, "--set", "stop.packets=100"];
        if flags[0] == "--set" {
            args.truncate(2);
        }
        args.extend(flags.iter().copied());
        cases.push(case("sweep", &args, &names));
    }
    for m in [
        "/dev/zero",
        "missing-dir",
        "sentinel.txt",
        "out-fifo",
        "scenarios",
    ] {
        cases.push(case("sweep merge", &["sweep", "--merge", m], &[m]));
    }
    // reproduce
    let root = repo().to_string_lossy().to_string();
    for only in ["nope", "", esc, &long] {
        cases.push(case(
            "reproduce only",
            &["reproduce", "--only", only],
            &["--only", "experiment"],
        ));
    }
    for (flag, v) in [
        ("--write-docs", "out-fifo"),
        ("--write-docs", "out-link"),
        ("--plots", "sentinel.txt"),
        ("--root", "missing-dir"),
        ("--root", "/dev/zero"),
        ("--format", "xml"),
    ] {
        let mut args = vec!["reproduce", "--only", "e2_sack", flag, v];
        if flag != "--root" {
            args.extend(["--root", &root]);
        }
        cases.push(case("reproduce", &args, &[flag, v]));
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
        cases.push(case("calibrate", &args, &names));
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
        cases.push(case("live", &["live", flag, v], &[flag, &flag[2..]]));
    }
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
    run_all("flag", &cases, true);
}
