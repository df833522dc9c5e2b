//! `oransim reproduce --html DIR` and `oransim plan … --html FILE` (issue 16, item 7): the real
//! binary writes one self-contained page; its structure is checked against the same run's JSON
//! (every experiment a section, every row with its class and verdict, every plot inline SVG),
//! nothing in it points outside the page, the writers refuse what they must not replace, and
//! the same run gives the same bytes.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{TempDir, oransim};
use serde_json::Value;

/// The same escaping the page uses (`printer::html::escape`), for looking up data in it.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Runs `oransim reproduce --format json --html DIR` with `extra` arguments, dated
/// `SOURCE_DATE_EPOCH=1700000000` (2023-11-14); the page and the JSON document of the same run.
fn reproduce(dir: &Path, extra: &[&str]) -> (String, Value) {
    let mut args = vec![
        "reproduce",
        "--format",
        "json",
        "--html",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    // In `crates/cli`, which is no checkout: `reproduce` uses its built-in copy of the data, and
    // writes only under `dir` (issue 39 #10).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(&args)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    // Exit 1 while a published number is missed (tests/reproduce.rs lists them).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "oransim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("reproduce JSON");
    let page = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let made = format!(
        "Made by oransim {} on 2023-11-14 (UTC).",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        page.contains(&made),
        "no footer naming the version and date"
    );
    (page, json)
}

/// The values of every `attr="…"` in `page`.
fn attributes<'a>(page: &'a str, attr: &str) -> Vec<&'a str> {
    let key = format!(" {attr}=\"");
    page.match_indices(&key)
        .map(|(i, _)| {
            let rest = &page[i + key.len()..];
            &rest[..rest.find('"').expect("a closed attribute")]
        })
        .collect()
}

/// Nothing in the page loads or links anything outside it: no `src=`, no script, style sheet
/// or CSS `url(`; every `href` an anchor to an `id` the page has.
fn self_contained(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>\n"));
    assert!(page.ends_with("</html>\n"));
    for bad in [
        "src=", "<script", "<link", "<iframe", "<img", "url(", "@import",
    ] {
        assert!(!page.contains(bad), "the page holds {bad}");
    }
    let ids: BTreeSet<&str> = attributes(page, "id").into_iter().collect();
    assert_eq!(
        ids.len(),
        attributes(page, "id").len(),
        "an id appears twice"
    );
    for href in attributes(page, "href") {
        let anchor = href
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("href {href:?} leaves the page"));
        assert!(
            ids.contains(anchor),
            "href {href:?}: no such id in the page"
        );
    }
    // The only external name is the SVG namespace, which no browser fetches.
    let outside = page.matches("http://").count() + page.matches("https://").count();
    assert_eq!(
        outside,
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
}

#[test]
fn the_reproduction_page_holds_every_experiment_row_and_plot() {
    let dir = TempDir::new("html-reproduce");
    // A directory that does not exist yet is created.
    let out = dir.join("report/new");
    let (page, json) = reproduce(&out, &[]);
    self_contained(&page);
    let exps = json["experiments"].as_array().unwrap();
    assert!(exps.len() >= 10, "{} experiments", exps.len());
    let mut plots = 0;
    for e in exps {
        let name = e["name"].as_str().unwrap();
        assert!(
            page.contains(&format!(
                "<section id=\"exp-{}\" class=\"experiment\">\n<h2>{}: {}</h2>",
                esc(name),
                esc(name),
                esc(e["title"].as_str().unwrap())
            )),
            "no section for {name}"
        );
        for (i, r) in e["rows"].as_array().unwrap().iter().enumerate() {
            let class = r["class"].as_str().unwrap();
            let pass = r["pass"].as_bool().unwrap();
            let tr = format!(
                "<tr id=\"row-{}-{i}\" class=\"row {}\" data-target=\"{}\" data-class=\"{class}\">",
                esc(name),
                if pass { "pass" } else { "fail" },
                esc(r["id"].as_str().unwrap()),
            );
            let at = page
                .find(&tr)
                .unwrap_or_else(|| panic!("{name} row {i} ({}) missing", r["id"]));
            let line = &page[at..at + page[at..].find('\n').unwrap()];
            assert!(line.contains(&format!(
                "<td class=\"class\">{class}</td><td class=\"verdict\">{}</td>",
                if pass { "PASS" } else { "FAIL" }
            )));
            assert!(line.contains(&esc(r["quantity"].as_str().unwrap())));
            // Its provenance follows, folded, with every entry of depends_on and fitted_from.
            let prov = &page[at + line.len()..];
            let prov = &prov[..prov.find("</details>").unwrap()];
            assert!(prov.starts_with("\n<tr class=\"prov\"><td colspan=\"9\"><details>"));
            for key in ["depends_on", "fitted_from"] {
                for d in r[key].as_array().unwrap() {
                    let d = format!("<code>{}</code>", esc(d.as_str().unwrap()));
                    assert!(prov.contains(&d), "{name} row {i}: {key} lacks {d}");
                }
            }
            if let Some(why) = r["why"].as_str() {
                assert!(
                    page.contains(&esc(why)),
                    "{name} row {i}: its why is missing"
                );
            }
        }
        for f in e["facts"].as_array().unwrap() {
            assert!(
                page.contains(&esc(f.as_str().unwrap())),
                "{name}: a fact is missing"
            );
        }
        for p in e["plots"].as_array().unwrap() {
            plots += 1;
            let fig = format!(
                "<figure id=\"plot-{}\">\n<svg ",
                esc(p["name"].as_str().unwrap())
            );
            assert!(page.contains(&fig), "{fig} missing: not inline SVG");
        }
    }
    assert!(plots >= 10, "{plots} plots");
    assert_eq!(page.matches("<figure").count(), plots);
    assert_eq!(page.matches("<svg ").count(), plots);
    // The papers with their full references, and the summary line.
    for p in json["papers"].as_object().unwrap().values() {
        assert!(page.contains(&esc(p["citation"].as_str().unwrap())));
    }
    let sum = &json["summary"];
    assert!(page.contains(&format!(
        "<strong>{} rows:</strong> {} passed, {} failed;",
        sum["rows"], sum["passed"], sum["failed"]
    )));
    assert!(!page.contains("id=\"sensitivity\""));
}

#[test]
fn sensitivity_results_are_on_the_page_when_asked_for() {
    let dir = TempDir::new("html-sensitivity");
    let (page, json) = reproduce(&dir, &["--only", "ofh_load", "--sensitivity"]);
    self_contained(&page);
    assert!(page.contains("<h2 id=\"sensitivity\">Sensitivity</h2>"));
    for v in json["sensitivity"].as_array().unwrap() {
        assert!(page.contains(&format!(
            "<tr><td><code>{}</code></td>",
            esc(v["assumption"].as_str().unwrap())
        )));
        for f in v["flips"].as_array().unwrap() {
            assert!(page.contains(&format!(
                "<code>{}</code>: ",
                esc(f["id"].as_str().unwrap())
            )));
        }
    }
    assert_eq!(page.matches("<section id=\"exp-").count(), 1);
}

#[test]
fn the_same_run_gives_the_same_bytes() {
    let a = TempDir::new("html-same-a");
    let b = TempDir::new("html-same-b");
    let (pa, _) = reproduce(&a, &[]);
    // Written again over the first page, and into another directory.
    let (pa2, _) = reproduce(&a, &[]);
    let (pb, _) = reproduce(&b, &[]);
    assert!(pa == pa2 && pa == pb, "two runs gave different pages");
    let left: Vec<String> = std::fs::read_dir(&*a)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["index.html"], "a temporary file was left behind");
}

/// Runs `args`, which must be refused naming `--html` and `path`, leaving `dir` as it was.
fn refused(args: &[&str], path: &Path, dir: &Path) {
    let before = listing(dir);
    let out = oransim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "oransim {args:?}: {err}");
    assert!(
        err.contains("--html") && err.contains(&path.display().to_string()),
        "the error names neither the flag nor the path: {err}"
    );
    assert_eq!(
        listing(dir),
        before,
        "oransim {args:?} changed {}",
        dir.display()
    );
}

/// The names and kinds in `dir`, sorted.
fn listing(dir: &Path) -> Vec<(String, bool, bool)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                t.is_dir(),
                t.is_symlink(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn what_is_not_a_regular_file_of_its_own_is_refused() {
    let dir = TempDir::new("html-refuse");
    let d = dir.to_str().unwrap();
    // DIR is a file.
    let file = dir.join("file");
    std::fs::write(&file, "mine").unwrap();
    let f = file.to_str().unwrap();
    refused(
        &["reproduce", "--only", "e2_size", "--html", f],
        &file,
        &dir,
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    // DIR/index.html is a directory.
    let sub = dir.join("as-dir");
    std::fs::create_dir_all(sub.join("index.html")).unwrap();
    let s = sub.to_str().unwrap();
    refused(
        &["reproduce", "--only", "e2_size", "--html", s],
        &sub.join("index.html"),
        &sub,
    );
    // DIR/index.html is a symbolic link (to a file it would otherwise overwrite).
    let link = dir.join("as-link");
    std::fs::create_dir(&link).unwrap();
    std::os::unix::fs::symlink(&file, link.join("index.html")).unwrap();
    let l = link.to_str().unwrap();
    refused(
        &["reproduce", "--only", "e2_size", "--html", l],
        &link.join("index.html"),
        &link,
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    // DIR/index.html is a FIFO (opening it to write would block).
    let fifo = dir.join("as-fifo");
    std::fs::create_dir(&fifo).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(fifo.join("index.html"))
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    refused(
        &[
            "reproduce",
            "--only",
            "e2_size",
            "--html",
            fifo.to_str().unwrap(),
        ],
        &fifo.join("index.html"),
        &fifo,
    );
    // plan's FILE is a directory or a symbolic link.
    for target in [d, link.join("index.html").to_str().unwrap()] {
        refused(
            &[
                "plan",
                "kex",
                "--profile",
                "calibration/dev-host-aws-lc.toml",
                "--ke",
                "x25519",
                "--html",
                target,
            ],
            Path::new(target),
            &dir,
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn a_plan_page_holds_the_question_inputs_and_answer() {
    let dir = TempDir::new("html-plan");
    let cases: [(&str, &[&str], &[&str]); 3] = [
        (
            "kex",
            &[
                "plan",
                "kex",
                "--profile",
                "calibration/dev-host-aws-lc.toml",
                "--ke",
                "x25519,mlkem768",
            ],
            &[
                "<th>key exchange</th>",
                "<td>mlkem768</td>",
                "<td>--auth</td><td>ed25519</td>",
            ],
        ),
        (
            "fronthaul",
            &[
                "plan",
                "fronthaul",
                "--profile",
                "calibration/dev-host-rustcrypto.toml",
                "--compare",
                "calibration/ofh-macsec-i9.toml",
                "--fibre",
                "10km",
                "--du",
                "B",
                "--ru",
                "O",
            ],
            &[
                "<td>--fibre</td><td>10km</td>",
                "<td>macsec-encrypt</td>",
                "pair O-DU B / O-RU O",
                "<table class=\"region\">",
                // Issue 37: the pair's detail is a table, not preformatted text.
                "longest fibre</th>",
            ],
        ),
        (
            "interface",
            &[
                "plan",
                "interface",
                "--profile",
                "calibration/colosseum-e2.toml",
                "--rate",
                "3.5Mbps",
                "--compare",
                "chacha20-poly1305",
            ],
            &[
                "<td>--rate</td><td>3.5Mbps</td>",
                "<td>chacha20-poly1305</td>",
                "added latency p50",
            ],
        ),
    ];
    for (name, args, expect) in cases {
        let file = dir.join(format!("{name}.html"));
        let mut a = args.to_vec();
        a.extend(["--html", file.to_str().unwrap()]);
        let out = oransim(&a);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The table on stdout is unchanged by --html.
        assert_eq!(
            out.stdout,
            crate::common::stdout(args).into_bytes(),
            "{name}"
        );
        let page = std::fs::read_to_string(&file).unwrap();
        self_contained(&page);
        assert!(page.contains(&format!(
            "<h1>oransim plan {name}</h1>\n<p><strong>Question:</strong>"
        )));
        assert!(page.contains("<h2 id=\"inputs\">Inputs</h2>"));
        assert!(page.contains("<h2 id=\"answer\">Answer</h2>"));
        for e in expect {
            assert!(page.contains(e), "{name}: no {e}");
        }
        assert!(
            !page.contains("<pre>"),
            "{name}: preformatted text on the page"
        );
        // Its first line of stdout, the plan's heading, is the page's too.
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(page.contains(&esc(text.lines().next().unwrap())), "{name}");
    }
}

/// Issue 25: a plan page names the oransim version and its date, the date from
/// `SOURCE_DATE_EPOCH` so the same plan gives the same bytes; a profile given as an absolute
/// path is recorded relative to the page, so no directory of the machine is in it; a
/// `SOURCE_DATE_EPOCH` that is not a date is refused by name, before anything is written.
#[test]
fn a_plan_page_says_which_oransim_made_it_and_when_without_absolute_paths() {
    let dir = TempDir::new("html-made");
    let cal = dir.join("calibration");
    std::fs::create_dir_all(&cal).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let profile = cal.join("dev-host-aws-lc.toml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../calibration/dev-host-aws-lc.toml"),
        &profile,
    )
    .unwrap();
    let page = dir.join("out/kex.html");
    let run = |epoch: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
            .args(["plan", "kex", "--profile", profile.to_str().unwrap()])
            .args(["--html", page.to_str().unwrap()])
            .env("SOURCE_DATE_EPOCH", epoch)
            .output()
            .unwrap()
    };
    let out = run("1700000000");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = std::fs::read_to_string(&page).unwrap();
    self_contained(&first);
    let made = format!(
        "Made by oransim {} on 2023-11-14 (UTC).",
        env!("CARGO_PKG_VERSION")
    );
    assert!(first.contains(&made), "{first}");
    assert!(first.contains("<td>--profile</td><td>../calibration/dev-host-aws-lc.toml</td>"));
    assert!(
        !first.contains(dir.to_str().unwrap()),
        "an absolute path in the page"
    );
    assert!(run("1700000000").status.success());
    assert_eq!(std::fs::read_to_string(&page).unwrap(), first);
    std::fs::remove_file(&page).unwrap();
    for bad in ["yesterday", "-1", "1e9", "999999999999999"] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("SOURCE_DATE_EPOCH") && err.contains("whole seconds"),
            "{err}"
        );
        assert!(!page.exists(), "{bad}: a page was written");
    }
}

/// Issue 37 item 10: the kex page draws the storm's completion over time, one curve per key
/// exchange, and the interface page delay against load, one p50 and one p99 curve per suite
/// and the offered load: inline SVG with axis labels in units and a legend naming each curve,
/// the same bytes for the same plan on the same date.
#[test]
fn plan_pages_draw_their_figures() {
    let dir = TempDir::new("html-figures");
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "kex",
            &[
                "plan",
                "kex",
                "--profile",
                "calibration/dev-host-aws-lc.toml",
                "--ke",
                "x25519,mlkem768",
                "--tunnels",
                "300",
            ],
            &[
                "<figure id=\"storm-completion\">",
                "Storm of 300 tunnels: share up over time",
                "time since the storm began [ms]",
                "tunnels up [% of tunnels started]",
                "\nx25519\n",
                "\nmlkem768\n",
            ],
        ),
        (
            "interface",
            &[
                "plan",
                "interface",
                "--profile",
                "calibration/colosseum-e2.toml",
                "--rate",
                "3.5Mbps",
                "--compare",
                "chacha20-poly1305",
            ],
            &[
                "<figure id=\"delay-against-load\">",
                "E2: one-way delay against load",
                "offered plaintext load [Mb/s]",
                "one-way delay [us]",
                "\nnone p99\n",
                "\naes256-gcm p99\n",
                "\nchacha20-poly1305 p50\n",
                "\noffered load, 3.500 Mb/s\n",
            ],
        ),
    ];
    for (name, args, expect) in cases {
        let run = |file: &Path| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
                .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
                .args(args)
                .args(["--html", file.to_str().unwrap()])
                .env("SOURCE_DATE_EPOCH", "1700000000")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::read_to_string(file).unwrap()
        };
        let page = run(&dir.join(format!("{name}-a.html")));
        self_contained(&page);
        assert_eq!(page.matches("<svg ").count(), 1, "{name}");
        for e in expect {
            assert!(page.contains(e), "{name}: no {e:?}");
        }
        assert_eq!(
            page,
            run(&dir.join(format!("{name}-b.html"))),
            "{name}: not the same bytes"
        );
    }
}

/// Issue 37 item 2: what a profile carries (a flagged sanity check, a user-space profile for
/// the kernel's MACsec path) is on the page under its own heading, as stderr says it.
#[test]
fn a_warned_plan_says_so_on_its_page() {
    let dir = TempDir::new("html-warned");
    let file = dir.join("fh.html");
    let out = oransim(&[
        "plan",
        "fronthaul",
        "--profile",
        "calibration/dev-host-rustcrypto.toml",
        "--html",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let page = std::fs::read_to_string(&file).unwrap();
    assert!(page.contains("<h2 id=\"warnings\">Warnings</h2>"));
    let said: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("oransim plan: warning: "))
        .collect();
    assert!(said.len() >= 2, "{stderr}");
    for w in said {
        // The page shows code spans as code; the words are the same.
        let words = esc(w).replace('`', "");
        let shown = page.replace("<code>", "").replace("</code>", "");
        assert!(shown.contains(&words), "not on the page: {w}");
    }
}
