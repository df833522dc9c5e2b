//! Unit tests of loading, validation and evaluation.

use super::*;

const GOOD: &str = r#"
format_version = 1

[profile]
name = "t"
kind = "measured"
implementation = "rustcrypto"

[node]
cores = { count = 2, source = "nproc" }
stack = { cost = "1us", source = "s" }
io = { cost = "0ns", source = "s" }

[node.offload]
macsec = true

[ops."aes128-gcm.seal"]
model = "linear"
fixed = "200ns"
per_byte = "0.5ns/B"
source = "m"
r2 = 0.999

[ops."aes128-gcm.open"]
model = "piecewise"
fixed = "0ns"
source = "m"
points = [
  { len = "64B", median = "300ns", p5 = "290ns", p95 = "320ns", samples = 9 },
  { len = "1000B", median = "800ns" },
  { len = "2000B", median = "1000ns" },
]

[ops."mlkem768.encaps"]
model = "constant"
fixed = "80us"
source = "m"
implementation = "ml-kem"
"#;

fn load(text: &str) -> Result<Profile, ProfileError> {
    Profile::from_toml_str(text, "test.toml")
}

fn err(text: &str) -> String {
    load(text).expect_err("should be refused").to_string()
}

#[test]
fn good_profile_loads_and_evaluates() {
    let p = load(GOOD).unwrap();
    assert_eq!(p.name(), "t");
    assert_eq!(p.kind(), ProfileKind::Measured);
    assert_eq!(p.cores(), 2);
    assert_eq!(p.stack_ns(), 1000.0);
    assert_eq!(p.io_ns(), 0.0);
    assert!(p.offload().macsec && !p.offload().ipsec);
    // linear: 200 + 0.5 * 1000
    assert_eq!(
        p.cipher_cost_ns(Suite::Aes128Gcm, Direction::Seal, 1000)
            .unwrap(),
        700.0
    );
    // constant ignores L; per-op implementation overrides the profile's
    assert_eq!(
        p.op_cost_ns(&Op::key(KeyAlg::MlKem768, KeyAction::Encaps).unwrap(), 9000)
            .unwrap(),
        80_000.0
    );
    assert_eq!(
        p.op(&Op::key(KeyAlg::MlKem768, KeyAction::Encaps).unwrap())
            .unwrap()
            .implementation,
        "ml-kem"
    );
    assert_eq!(
        p.op(&Op::Cipher(Suite::Aes128Gcm, Direction::Seal))
            .unwrap()
            .implementation,
        "rustcrypto"
    );
}

#[test]
fn piecewise_interpolates_and_extrapolates() {
    let p = load(GOOD).unwrap();
    let c = |l| {
        p.cipher_cost_ns(Suite::Aes128Gcm, Direction::Open, l)
            .unwrap()
    };
    assert_eq!(c(64), 300.0);
    assert_eq!(c(1000), 800.0);
    assert_eq!(c(1500), 900.0); // halfway between 800 and 1000
    // beyond the table: last segment slope 0.2 ns/B
    assert!((c(3000) - 1200.0).abs() < 1e-9);
    // below: first segment slope 500/936 ns/B, never negative
    assert!(c(0) < 300.0 && c(0) >= 0.0);
}

#[test]
fn unknown_op_lists_available() {
    let p = load(GOOD).unwrap();
    let e = p
        .cipher_cost_ns(Suite::Aes256Gcm, Direction::Seal, 64)
        .unwrap_err()
        .to_string();
    assert!(e.contains("test.toml"), "{e}");
    assert!(e.contains("no operation `aes256-gcm.seal`"), "{e}");
    assert!(
        e.contains("aes128-gcm.open, aes128-gcm.seal, mlkem768.encaps"),
        "{e}"
    );
}

#[test]
fn round_trips_through_toml() {
    let p = load(GOOD).unwrap();
    let text = p.to_toml_string().unwrap();
    let q = load(&text).unwrap();
    assert_eq!(p.file(), q.file());
}

#[test]
fn missing_field_names_file_and_field() {
    let e = err(&GOOD.replace("io = { cost = \"0ns\", source = \"s\" }\n", ""));
    assert!(e.starts_with("test.toml: "), "{e}");
    assert!(e.contains("missing field `io`"), "{e}");
}

#[test]
fn negative_cost_is_refused() {
    let e = err(&GOOD.replace("fixed = \"200ns\"", "fixed = \"-200ns\""));
    assert!(e.contains("`ops.\"aes128-gcm.seal\".fixed`"), "{e}");
    assert!(e.contains("negative"), "{e}");
}

#[test]
fn unit_errors_say_what_is_allowed() {
    let e = err(&GOOD.replace("per_byte = \"0.5ns/B\"", "per_byte = \"0.5ns\""));
    assert!(e.contains("`ops.\"aes128-gcm.seal\".per_byte`"), "{e}");
    assert!(
        e.contains("unknown unit `ns`") && e.contains("`ns/B`"),
        "{e}"
    );
    let e = err(&GOOD.replace("cost = \"1us\"", "cost = \"1\""));
    assert!(
        e.contains("`node.stack.cost`") && e.contains("no unit"),
        "{e}"
    );
    let e = err(&GOOD.replace("len = \"1000B\"", "len = \"1000\""));
    assert!(e.contains("points[1].len"), "{e}");
}

#[test]
fn newer_format_is_refused_before_unknown_fields() {
    let newer = GOOD.replace("format_version = 1", "format_version = 2\nnew_thing = 1");
    let e = err(&newer);
    assert!(
        e.contains("test.toml") && e.contains("`format_version` is 2"),
        "{e}"
    );
    assert!(e.contains("reads profile formats up to 1"), "{e}");
    let e = err(&GOOD.replace("format_version = 1\n", ""));
    assert!(e.contains("`format_version`: missing"), "{e}");
    let e = err(&GOOD.replace("format_version = 1", "format_version = \"1\""));
    assert!(e.contains("expected an integer, found a string"), "{e}");
}

#[test]
fn other_invalid_inputs() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "kind = \"measured\"",
            "kind = \"guessed\"",
            "`profile.kind`",
        ),
        ("count = 2", "count = 0", "at least 1"),
        ("source = \"nproc\"", "source = \" \"", "must say where"),
        (
            "model = \"linear\"",
            "model = \"cubic\"",
            "`linear`, `piecewise`, `constant`",
        ),
        ("per_byte = \"0.5ns/B\"\n", "", "a `linear` op needs"),
        ("r2 = 0.999", "r2 = 1.5", "coefficient of determination"),
        ("len = \"2000B\"", "len = \"900B\"", "increasing length"),
        (
            "p95 = \"320ns\"",
            "p95 = \"100ns\"",
            "percentiles out of order",
        ),
        ("samples = 9", "samples = 0", "at least 1"),
        (
            "[ops.\"mlkem768.encaps\"]",
            "[ops.\"MLKEM768\"]",
            "not an operation name",
        ),
        (
            "fixed = \"80us\"",
            "fixed = \"80us\"\nper_byte = \"1ns/B\"",
            "no cost per byte",
        ),
        ("cores = {", "cpus = 3\ncores = {", "unknown field `cpus`"),
        ("[profile]", "[profile", "not TOML at line "),
    ];
    for (from, to, want) in cases {
        let text = GOOD.replacen(from, to, 1);
        assert_ne!(text, GOOD, "case {from:?} did not apply");
        let e = err(&text);
        assert!(e.contains(want), "{from:?} -> {to:?}: {e}");
        assert!(e.contains("test.toml"), "{e}");
    }
}

#[test]
fn piecewise_needs_two_points() {
    let text = GOOD.replace(
        "  { len = \"1000B\", median = \"800ns\" },\n  { len = \"2000B\", median = \"1000ns\" },\n",
        "",
    );
    assert!(err(&text).contains("at least 2 points"));
}

#[test]
fn io_error_names_path() {
    let e = Profile::load("/nonexistent/p.toml").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/p.toml"));
}

#[test]
fn suite_and_op_names_are_valid_op_names() {
    for s in Suite::ALL {
        for d in [Direction::Seal, Direction::Open] {
            let op = Op::Cipher(s, d);
            assert_eq!(op.to_string().parse::<Op>(), Ok(op));
        }
    }
    // A seal/open op must name a suite, and the error lists them (issue 15).
    let e = "aes512-gcm.seal".parse::<Op>().unwrap_err().to_string();
    assert!(
        e.contains("aes512-gcm.seal") && e.contains("gmac-aes256"),
        "{e}"
    );
    // Any other `<alg>.<action>` must be a key op oransim prices, and the error lists them.
    for bad in [
        "aes512-gcm.other",
        "x25519.sign",
        "mlkem768.agree",
        "mlkem769.encaps",
    ] {
        let e = bad.parse::<Op>().unwrap_err().to_string();
        assert_eq!(
            e.split_once(';').unwrap().0,
            format!("`{bad}` is no key operation oransim prices"),
            "{e}"
        );
        assert!(
            e.contains("`x25519.keygen`, `x25519.agree`")
                && e.ends_with("`frodokem-976-aes.decaps`"),
            "{e}"
        );
    }
    for op in all_key_ops() {
        let parsed = op.to_string().parse::<Op>().unwrap();
        assert_eq!(parsed, Op::Key(op));
        assert_eq!(op.to_string().parse::<KeyOp>(), Ok(op));
    }
    for bad in ["", "x25519", ".keygen", "X25519.keygen", "x25519.", "-a.b"] {
        assert!(bad.parse::<Op>().is_err(), "{bad}");
    }
}

#[test]
fn key_op_lists_are_every_action_of_every_algorithm() {
    let listed: Vec<KeyOp> = all_key_ops().collect();
    let mut every = Vec::new();
    for alg in KeyAlg::ALL {
        assert_eq!(alg.name().parse::<KeyAlg>(), Ok(alg));
        for action in KeyAction::ALL {
            assert_eq!(action.name().parse::<KeyAction>(), Ok(action));
            let op = KeyOp::new(alg, action);
            assert_eq!(op.is_some(), alg.actions().contains(&action));
            every.extend(op);
        }
    }
    assert_eq!(listed.len(), every.len());
    assert!(every.iter().all(|op| listed.contains(op)));
    for op in &listed {
        assert!(op.alg().actions().contains(&op.action()), "{op}");
    }
    // Ordered as the names are, so profiles list their key ops in the same order as before.
    let mut by_op = listed.clone();
    by_op.sort();
    let mut by_name: Vec<String> = listed.iter().map(ToString::to_string).collect();
    by_name.sort();
    let sorted: Vec<String> = by_op.iter().map(ToString::to_string).collect();
    assert_eq!(sorted, by_name);
}

#[test]
fn latency_is_optional_and_validated() {
    let p = load(GOOD).unwrap();
    assert_eq!(p.latency_ns(), 0.0);
    let with = GOOD.replace(
        "io = { cost = \"0ns\", source = \"s\" }",
        "io = { cost = \"0ns\", source = \"s\" }\nlatency = { cost = \"20us\", source = \"fit\", fitted_to = [\"x\"] }",
    );
    let p = load(&with).unwrap();
    assert_eq!(p.latency_ns(), 20_000.0);
    assert_eq!(p.latency().provenance.fitted_to, ["x"]);
    let bad = with.replace("\"20us\"", "\"-1us\"");
    assert!(err(&bad).contains("`node.latency.cost`"));
}

#[test]
fn packet_costs_compose() {
    let p = load(GOOD).unwrap();
    // stack 1 us + 200 + 0.5 * 1000 ns on 2 cores, no I/O cost: CPU-bound.
    let c = p
        .packet(Some(Suite::Aes128Gcm), Direction::Seal, 1000, 1050)
        .unwrap();
    assert_eq!(c.cpu_ns, 1700.0);
    assert_eq!(c.cipher_ns, 700.0);
    assert!(!c.io_bound());
    assert!((c.capacity_pps() - 2.0e9 / 1700.0).abs() < 1e-6);
    assert!((c.cpu_utilisation(c.capacity_pps()) - 1.0).abs() < 1e-12);
    assert_eq!(c.delay_ns(), 1700.0);
    let fwd = p.packet(None, Direction::Seal, 1000, 1050).unwrap();
    assert_eq!(fwd.cpu_ns, 1000.0);
    assert!(
        p.packet(Some(Suite::Aes256Ccm), Direction::Open, 1, 1)
            .is_err()
    );
}

#[test]
fn io_per_byte_is_optional_validated_and_written_back() {
    // Absent: the I/O cost is the fixed part alone, whatever the frame size.
    let p = load(GOOD).unwrap();
    assert_eq!(p.io_per_byte_ns(), 0.0);
    assert_eq!(p.io_cost_ns(9000), p.io_ns());
    let with = GOOD.replace(
        "io = { cost = \"0ns\", source = \"s\" }",
        "io = { cost = \"1us\", per_byte = \"3ns/B\", source = \"fit\", fitted_to = [\"x\"] }",
    );
    let p = load(&with).unwrap();
    assert_eq!(p.io_ns(), 1000.0);
    assert_eq!(p.io_per_byte_ns(), 3.0);
    // 1 us + 3 ns/B x 1000 B = 4 us, at the frame size, not the protected length.
    assert_eq!(p.io_cost_ns(1000), 4000.0);
    let c = p
        .packet(Some(Suite::Aes128Gcm), Direction::Seal, 900, 1000)
        .unwrap();
    assert_eq!(c.io_ns, 4000.0);
    assert_eq!(c.cpu_ns, 1000.0 + 200.0 + 0.5 * 900.0);
    assert_eq!(p.io().provenance.fitted_to, ["x"]);
    // Round trip keeps it.
    let q = load(&p.to_toml_string().unwrap()).unwrap();
    assert_eq!(q.io_per_byte_ns(), 3.0);
    assert_eq!(q.file(), p.file());
    // A profile built in memory keeps it.
    let r = Profile::from_file(p.file().clone(), "mem").unwrap();
    assert_eq!(r.io_per_byte_ns(), 3.0);
    // Bad values name the file and the key.
    for (bad, want) in [
        ("\"-3ns/B\"", "negative"),
        ("\"3ns\"", "unknown unit `ns`"),
        ("\"3\"", "no unit"),
    ] {
        let e = err(&with.replace("\"3ns/B\"", bad));
        assert!(e.starts_with("test.toml: "), "{e}");
        assert!(e.contains("`node.io.per_byte`") && e.contains(want), "{e}");
    }
    let e = err(&with.replace("\"3ns/B\"", "3"));
    assert!(
        e.starts_with("test.toml: ") && e.contains("per_byte"),
        "{e}"
    );
    // Only the I/O cost has a per-byte part.
    let e = err(&GOOD.replace(
        "stack = { cost = \"1us\", source = \"s\" }",
        "stack = { cost = \"1us\", per_byte = \"1ns/B\", source = \"s\" }",
    ));
    assert!(
        e.contains("`node.stack.per_byte`") && e.contains("only for `node.io`"),
        "{e}"
    );
}

/// Issue 12: `trace::record` returns every parameter read while it ran, with the targets each
/// was fitted to; recordings nest; listing the ops records nothing.
#[test]
fn trace_records_the_parameters_a_computation_reads() {
    let with = GOOD.replace(
        "stack = { cost = \"1us\", source = \"s\" }",
        "stack = { cost = \"1us\", source = \"fit\", fitted_to = [\"paper/fig1/x\"] }",
    );
    let p = load(&with).unwrap();
    let names = |reads: &[crate::trace::Read]| -> Vec<String> {
        reads.iter().map(|r| r.param.clone()).collect()
    };
    let ((), outer) = crate::trace::record(|| {
        let (cost, inner) = crate::trace::record(|| {
            p.packet(Some(Suite::Aes128Gcm), Direction::Seal, 100, 150)
                .unwrap()
        });
        assert_eq!(cost.cpu_ns, 1000.0 + 200.0 + 50.0);
        assert_eq!(
            names(&inner),
            [
                "t:node.cores",
                "t:node.io",
                "t:node.latency",
                "t:node.stack",
                "t:ops.\"aes128-gcm.seal\""
            ]
        );
        let stack = inner.iter().find(|r| r.param == "t:node.stack").unwrap();
        assert_eq!(stack.fitted_to, ["paper/fig1/x"]);
        let _ = p.ops().count();
    });
    // The inner recording's reads reached the outer one; `ops()` added none.
    assert_eq!(outer.len(), 5);
    // Outside any recording nothing is kept.
    let _ = p.stack_ns();
    let ((), after) = crate::trace::record(|| ());
    assert!(after.is_empty());
}

/// [`GOOD`] with a strongSwan `[implementation]` section of two terms.
fn with_strongswan() -> String {
    format!(
        r#"{GOOD}
[implementation]
name = "strongswan"
version = "5.9.8"
data_path = "kernel-libipsec"
source = "a run"

[implementation.terms."ike.daemon.responder.loaded"]
value = 717000.0
unit = "ns"
spread = 0.12
fitted_to = ["ike.storm.50.time"]
source = "storm"

[implementation.terms."ike.parallelism"]
value = 1.5
unit = "cores"
source = "storm"
"#
    )
}

#[test]
fn terms_are_read_by_their_term() {
    let p = load(&with_strongswan()).unwrap();
    assert_eq!(p.term(Term::IkeDaemonResponderLoaded), Some(717_000.0));
    assert_eq!(p.term(Term::IkeParallelism), Some(1.5));
    assert_eq!(p.term(Term::IkeChildSaInstall), None);
    assert_eq!(load(GOOD).unwrap().term(Term::IkeLatency), None);
    let (_, reads) = trace::record(|| p.term(Term::IkeDaemonResponderLoaded));
    assert_eq!(
        reads[0].param,
        "t:implementation.terms.ike.daemon.responder.loaded"
    );
    assert_eq!(reads[0].fitted_to, ["ike.storm.50.time"]);
}

/// A misspelt term is refused naming the file, the key, and the implementation's terms.
#[test]
fn a_misspelt_term_is_refused_listing_the_allowed_names() {
    let text = with_strongswan().replace("responder.loaded", "responder.laoded");
    let e = err(&text);
    assert!(e.starts_with("test.toml: "), "{e}");
    assert!(
        e.contains("`implementation.terms.\"ike.daemon.responder.laoded\"`"),
        "{e}"
    );
    assert!(e.contains("is not a term of `strongswan`"), "{e}");
    for t in RealImplementation::Strongswan.terms() {
        assert!(e.contains(&format!("`{t}`")), "{t} not listed: {e}");
    }
    assert!(
        !e.contains("tls."),
        "another implementation's terms listed: {e}"
    );
}

#[test]
fn another_implementations_term_is_refused() {
    let text = with_strongswan().replace(
        "\"ike.parallelism\"]\nvalue = 1.5\nunit = \"cores\"",
        "\"tls.record.overhead_per_byte\"]\nvalue = 1.5\nunit = \"ns/B\"",
    );
    assert_ne!(text, with_strongswan());
    let e = err(&text);
    assert!(
        e.contains(
            "`tls.record.overhead_per_byte` is a term of `openssl-tls`, not of `strongswan`"
        ),
        "{e}"
    );
}

#[test]
fn a_term_in_another_unit_is_refused_naming_its_unit() {
    for (from, to, want) in [
        (
            "unit = \"cores\"",
            "unit = \"ns\"",
            "`implementation.terms.\"ike.parallelism\".unit`: `ns` is not the unit of `ike.parallelism`, which is `cores`",
        ),
        (
            "unit = \"ns\"",
            "unit = \"us\"",
            "`us` is not the unit of `ike.daemon.responder.loaded`, which is `ns`",
        ),
        ("value = 1.5", "value = -1.5", "is not a finite value >= 0"),
        ("value = 1.5", "value = nan", "is not a finite value"),
        // Issue 39 #9: bounds on every term.
        (
            "value = 1.5",
            "value = 0",
            "`implementation.terms.\"ike.parallelism\".value`: 0 is outside what a measurement of `ike.parallelism` can be: 0.01 to 4096 cores",
        ),
        (
            "value = 717000.0",
            "value = 1e308",
            "is outside what a measurement of `ike.daemon.responder.loaded` can be: 0 to 10000000000 ns",
        ),
        ("spread = 0.12", "spread = -0.1", "finite fraction"),
        (
            "name = \"strongswan\"",
            "name = \"libreswan\"",
            "`strongswan`, `openssl-tls`",
        ),
        (
            "source = \"storm\"\n\n",
            "source = \" \"\n\n",
            "must not be empty",
        ),
    ] {
        let text = with_strongswan().replacen(from, to, 1);
        assert_ne!(text, with_strongswan(), "case {from:?} did not apply");
        let e = err(&text);
        assert!(e.contains(want), "{from:?} -> {to:?}: {e}");
        assert!(e.starts_with("test.toml: "), "{e}");
    }
}

/// The writer's helper takes the unit from the term, and what it writes reads back.
#[test]
fn insert_term_writes_the_terms_unit_and_reads_back() {
    let mut file: file::ProfileFile = toml::from_str(GOOD).unwrap();
    let mut imp = file::ImplementationFile::new(
        RealImplementation::OpensslTls,
        "3.0.15",
        "loopback-tcp",
        "a run",
    );
    imp.insert_term(
        Term::TlsHandshakeWaitOffset,
        -250.0,
        Some(0.1),
        vec!["tls.hs.x25519.ecdsap256".into()],
        "fit",
    );
    imp.insert_term(Term::TlsRecordOverheadPerByte, 0.7, None, Vec::new(), "fit");
    assert_eq!(
        imp.term(Term::TlsRecordOverheadPerByte).unwrap().unit,
        "ns/B"
    );
    file.implementation = Some(imp);
    let text = to_toml_string(&file).unwrap();
    let p = load(&text).unwrap();
    // Only `tls.handshake.wait_offset` may be negative.
    assert_eq!(p.term(Term::TlsHandshakeWaitOffset), Some(-250.0));
    assert_eq!(p.term(Term::TlsRecordOverheadPerByte), Some(0.7));
    assert_eq!(p.to_toml_string().unwrap(), text);
}
