//! Every example is a test (issue 16): each command block of README.md and docs/*.md runs here
//! and must print what the page shows, so the docs cannot drift from the tool.
//!
//! What the harness reads, in each page, in order:
//!
//! - **A command block**: a ```` ``` ```` or ```` ```console ```` fence with lines `$ oransim ...`.
//!   A command may continue over lines ending in `\` and end in a `# comment`; its output is the
//!   lines below it, up to the next `$ ` line or the fence: stdout, then stderr, then a line
//!   `exit N` when the exit status is not 0. A last output line `...` means "the first lines
//!   only"; a `...` line between others stands for any number of lines. The command runs from
//!   the repository root, with `/tmp/` in its arguments (and in its output) standing for a
//!   scratch directory of this page's, so a block may read what an earlier block of the same
//!   page wrote.
//! - **A file block**: a ```` ```toml ```` fence whose first line is `# file: /tmp/NAME`. Its text
//!   is written to that file (in the scratch directory) for the command blocks after it.
//! - **Shown, not run**: a ```` ```text ```` fence with `$ ` lines, and ```` ```sh ```` recipes
//!   (commands without their output: installation, cluster jobs, measurements of minutes). The
//!   page says why; the test counts and lists them (`-- --nocapture`), so nothing is skipped
//!   silently. A plain fence that starts with an `oransim`, `cargo` or `sudo` command but has
//!   no `$ ` is an error: it must be one or the other.
//!
//! Before comparing, both sides lose only what varies from run to run: the wall-clock seconds
//! and events/s of a `run:` line and of the JSON keys `wall_s` and `events_per_s`, and in the
//! output of `live` and `calibrate` (measurements of this host) every decimal figure and
//! percentage, the yes/no verdicts and a "the machine was busy" warning. The pages say where
//! figures vary.
//!
//! `ORANSIM_BLESS=1 cargo test -p oransim --test cli docs::` rewrites every output that differs with
//! what the command printed (keeping a trailing `...` cut); a block with `...` between lines is
//! reported for editing by hand. Review the diff of the pages before committing it.
//!
//! Two more checks keep the pages true: docs/reproduction.md and docs/img are byte for byte what
//! the `oransim reproduce` command named at the top of the page writes (blessed the same way),
//! and every relative link of the pages names a file of the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TempDir;
use Item::NotRun;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The pages whose blocks are tested: README.md and docs/*.md, in a fixed order.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root().join("README.md"));
    pages
}

/// One `$ ` command of a page and the output the page shows for it.
#[derive(Debug)]
struct Example {
    /// Line of the `$ ` (1-based), for messages.
    line: usize,
    /// The command as written, continuation lines joined.
    command: String,
    /// Index of the first output line in the page's lines.
    out_start: usize,
    /// Index one past the last output line.
    out_end: usize,
}

/// What a page holds, in page order.
#[derive(Debug)]
enum Item {
    /// A file to write before the commands below it: (path as written, text).
    File(String, String),
    Run(Example),
    /// A fence shown but not run: (line of the fence, what it is).
    NotRun(usize, String),
    /// A block the harness cannot read: (line, why).
    Bad(usize, String),
}

/// The page's lines with fences (and their bodies) moved to column 0, as a fence inside a list
/// item is indented; and each line's indent, to put back when blessing.
fn dedent(raw: &[&str]) -> (Vec<String>, Vec<usize>) {
    let (mut lines, mut indents) = (vec![], vec![]);
    let mut fence: Option<usize> = None;
    for line in raw {
        let trimmed = line.trim_start_matches(' ');
        let indent = fence.unwrap_or(line.len() - trimmed.len());
        let cut = line.len() - line.trim_start_matches(' ').len();
        lines.push(line[cut.min(indent)..].to_string());
        indents.push(indent);
        if trimmed.starts_with("```") {
            fence = match fence {
                None => Some(indent),
                Some(_) => None,
            };
        }
    }
    (lines, indents)
}

fn parse(lines: &[String]) -> Vec<Item> {
    let mut items = vec![];
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let info = info.split_whitespace().next().unwrap_or("").to_string();
        let start = i + 1;
        let end = (start..lines.len())
            .find(|&k| lines[k].starts_with("```"))
            .unwrap_or(lines.len());
        let body = &lines[start..end];
        let has_commands = body.iter().any(|l| l.starts_with("$ "));
        match info.as_str() {
            "" | "console" if has_commands => parse_commands(lines, start, end, &mut items),
            "" | "console"
                if body.first().is_some_and(|l| {
                    ["oransim ", "cargo ", "sudo "]
                        .iter()
                        .any(|p| l.starts_with(p))
                }) =>
            {
                items.push(Item::Bad(
                    start,
                    "commands without `$ ` in a plain fence: write them as `$ ` lines with \
                     their output (run), or mark the fence ```sh (shown, not run)"
                        .into(),
                ))
            }
            "text" if has_commands => items.push(NotRun(start, format!("text: {}", body[0]))),
            "sh" | "bash" | "shell" => {
                let first = body.first().map_or("", String::as_str);
                items.push(NotRun(start, format!("{info} recipe: {first}")));
            }
            "toml" => {
                if let Some(path) = body.first().and_then(|l| l.strip_prefix("# file: ")) {
                    let mut text = body.join("\n");
                    text.push('\n');
                    items.push(Item::File(path.trim().to_string(), text));
                }
            }
            _ => {}
        }
        i = end + 1;
    }
    items
}

fn parse_commands(lines: &[String], start: usize, end: usize, items: &mut Vec<Item>) {
    let mut k = start;
    while k < end {
        let Some(first) = lines[k].strip_prefix("$ ") else {
            items.push(Item::Bad(
                k + 1,
                "output before the first `$ ` line of a command block".into(),
            ));
            return;
        };
        let line = k + 1;
        let mut command = first.to_string();
        while command.trim_end().ends_with('\\') && k + 1 < end {
            k += 1;
            let trimmed = command.trim_end();
            command = format!("{} {}", &trimmed[..trimmed.len() - 1], lines[k].trim());
        }
        let out_start = k + 1;
        let out_end = (out_start..end)
            .find(|&j| lines[j].starts_with("$ "))
            .unwrap_or(end);
        items.push(Item::Run(Example {
            line,
            command,
            out_start,
            out_end,
        }));
        k = out_end;
    }
}

/// Splits a command line as a POSIX shell would for the quoting the docs use: words separated
/// by blanks, `'...'` and `"..."` quotes, `\` escapes, and a `#` that starts a word begins a
/// comment.
fn words(command: &str) -> Vec<String> {
    let mut out = vec![];
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    out.push(w);
                }
            }
            '#' if word.is_none() => break,
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// Runs one documented command from the repository root; returns what a terminal shows.
fn run(command: &str, scratch: &Path) -> Result<Vec<String>, String> {
    let argv = words(command);
    let scratch = scratch.to_str().expect("a UTF-8 scratch path");
    let (program, args) = argv.split_first().ok_or("an empty command")?;
    if program != "oransim" {
        return Err(format!(
            "`{program}` is not run by the docs test: show it in a ```text or ```sh fence and say why it is not run"
        ));
    }
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("/tmp/", &format!("{scratch}/")))
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(&args)
        .current_dir(root())
        .env_remove("ORANSIM_BLESS")
        .output()
        .map_err(|e| format!("oransim does not start: {e}"))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<String> = text
        .replace(scratch, "/tmp")
        .lines()
        .map(str::to_string)
        .collect();
    match out.status.code() {
        Some(0) => {}
        Some(code) => lines.push(format!("exit {code}")),
        None => lines.push("killed by a signal".into()),
    }
    Ok(lines)
}

/// Whether the command measures this host (every figure of its output varies).
fn measures(command: &str) -> bool {
    let argv = words(command);
    match argv.get(1).map(String::as_str) {
        Some("live") => true,
        Some("calibrate") => !argv.iter().any(|a| a == "--from-openssl-speed"),
        _ => false,
    }
}

/// Replaces what varies between two runs with `*` (see the module documentation).
fn redact(line: &str, measured: bool) -> Option<String> {
    if let Some(scrubbed) = crate::common::scrub_wall_clock(line) {
        return Some(scrubbed);
    }
    if !measured {
        return Some(line.to_string());
    }
    if line.starts_with("warning: the machine was busy") {
        return None;
    }
    let mut words = vec![];
    for word in line.split_whitespace() {
        words.push(match word {
            "yes" | "no" => "*".to_string(),
            w => redact_figures(w),
        });
    }
    Some(words.join(" "))
}

/// In one word, each decimal figure or percentage (with its sign) becomes `*`.
fn redact_figures(word: &str) -> String {
    let chars: Vec<char> = word.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let signed = (chars[i] == '-' || chars[i] == '+')
            && i == 0
            && chars.get(1).is_some_and(char::is_ascii_digit);
        if chars[i].is_ascii_digit() || signed {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let figure: String = chars[i..j].iter().collect();
            if figure.contains('.') || chars.get(j) == Some(&'%') {
                out.push('*');
            } else {
                out.push_str(&figure);
            }
            i = j;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether `got` matches `want`, where a `want` line `...` stands for any lines.
fn matches(want: &[String], got: &[String]) -> bool {
    let Some(gap) = want.iter().position(|l| l == "...") else {
        return want == got;
    };
    if got.len() < gap || want[..gap] != got[..gap] {
        return false;
    }
    let rest = &want[gap + 1..];
    (gap..=got.len()).any(|k| matches(rest, &got[k..]))
}

/// Runs every block of one page and returns the differences; when blessing, rewrites the
/// outputs that differ in the page instead (and lists it in `summary`).
fn check_page(page: &Path, bless: bool, summary: &mut Vec<String>) -> Vec<String> {
    let name = page
        .strip_prefix(root())
        .unwrap_or(page)
        .display()
        .to_string();
    let text = std::fs::read_to_string(page).expect("the page is readable");
    let raw: Vec<&str> = text.split('\n').collect();
    let (lines, indents) = dedent(&raw);
    let scratch = TempDir::new("docs");
    let mut differ = vec![];
    let mut rewrites: Vec<(usize, usize, Vec<String>)> = vec![];
    let (mut ran, mut files) = (0, 0);
    for item in parse(&lines) {
        match item {
            Item::File(path, body) => {
                let Some(rel) = path.strip_prefix("/tmp/") else {
                    differ.push(format!(
                        "{name}: a file block writes {path}: only /tmp/ paths"
                    ));
                    continue;
                };
                std::fs::write(scratch.join(rel), body).expect("write a file block");
                files += 1;
            }
            NotRun(line, what) => summary.push(format!("  not run: {name}:{line}: {what}")),
            Item::Bad(line, why) => differ.push(format!("{name}:{line}: {why}")),
            Item::Run(ex) => {
                ran += 1;
                let got = match run(&ex.command, &scratch) {
                    Ok(got) => got,
                    Err(e) => {
                        differ.push(format!("{name}:{}: {e}", ex.line));
                        continue;
                    }
                };
                let measured = measures(&ex.command);
                let shown: Vec<String> = lines[ex.out_start..ex.out_end]
                    .iter()
                    .map(|l| l.to_string())
                    .collect();
                let scrub = |ls: &[String]| -> Vec<String> {
                    let mut ls: Vec<String> =
                        ls.iter().filter_map(|l| redact(l, measured)).collect();
                    while ls.last().is_some_and(|l| l.is_empty()) {
                        ls.pop();
                    }
                    ls
                };
                if matches(&scrub(&shown), &scrub(&got)) {
                    continue;
                }
                let cut = shown.last().is_some_and(|l| l == "...");
                let inner_gap = shown[..shown.len().saturating_sub(1)]
                    .iter()
                    .any(|l| l == "...");
                if bless && !inner_gap {
                    let mut new = got.clone();
                    if cut {
                        new.truncate(shown.len() - 1);
                        new.push("...".into());
                    }
                    rewrites.push((ex.out_start, ex.out_end, new));
                    continue;
                }
                let first = shown
                    .iter()
                    .zip(&got)
                    .position(|(w, g)| redact(w, measured) != redact(g, measured))
                    .unwrap_or(shown.len().min(got.len()));
                differ.push(format!(
                    "{name}:{}: `$ {}` prints something else{}; first difference at output line {}:\n  page: {}\n  got:  {}\n  whole output:\n{}",
                    ex.line,
                    ex.command,
                    if inner_gap { " (a block with `...` between lines: edit it by hand)" } else { "" },
                    first + 1,
                    shown.get(first).map_or("<end>", String::as_str),
                    got.get(first).map_or("<end>", String::as_str),
                    got.iter().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"),
                ));
            }
        }
    }
    if ran + files > 0 {
        summary.push(format!(
            "  {name}: {ran} command(s) run, {files} file block(s)"
        ));
    }
    if !rewrites.is_empty() {
        let mut new: Vec<String> = raw.iter().map(|l| l.to_string()).collect();
        for (start, end, out) in rewrites.into_iter().rev() {
            let pad = " ".repeat(indents[start - 1]);
            let out = out
                .into_iter()
                .map(|l| if l.is_empty() { l } else { format!("{pad}{l}") });
            new.splice(start..end, out);
        }
        std::fs::write(page, new.join("\n")).expect("rewrite the page");
        summary.push(format!("  {name}: blessed"));
    }
    differ
}

#[test]
fn every_command_block_prints_what_the_page_shows() {
    let bless = std::env::var_os("ORANSIM_BLESS").is_some();
    let mut summary = vec![];
    let mut differ = vec![];
    for page in pages() {
        differ.extend(check_page(&page, bless, &mut summary));
    }
    eprintln!("docs test:\n{}", summary.join("\n"));
    assert!(
        differ.is_empty(),
        "{} documented command(s) differ (bless with ORANSIM_BLESS=1 after checking why):\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The files under `dir`, recursively, as paths relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(
                files_under(&path)
                    .into_iter()
                    .map(|p| Path::new(path.file_name().expect("a named directory")).join(p)),
            );
        } else {
            out.push(PathBuf::from(path.file_name().expect("a named file")));
        }
    }
    out.sort();
    out
}

/// docs/reproduction.md (and the plots in docs/img) are the output of the command its first
/// lines name (`Written by `oransim reproduce ... --write-docs docs/reproduction.md --plots
/// docs/img``): run it into a scratch directory and compare every file it writes with the
/// committed one, byte for byte. `ORANSIM_BLESS=1` copies the fresh files over.
#[test]
fn reproduction_md_and_its_plots_are_what_reproduce_writes() {
    let page = root().join("docs/reproduction.md");
    let text = std::fs::read_to_string(&page).expect("docs/reproduction.md is readable");
    let command = text
        .lines()
        .take(5)
        .find_map(|l| l.strip_prefix("Written by `")?.split('`').next())
        .expect("docs/reproduction.md names the command that wrote it in its first lines");
    let scratch = TempDir::new("docs-reproduce");
    let argv = words(command);
    assert_eq!(
        argv.first().map(String::as_str),
        Some("oransim"),
        "{command}"
    );
    let args: Vec<String> = argv[1..]
        .iter()
        .map(|a| match a.strip_prefix("docs/") {
            Some(rest) => scratch.join(rest).display().to_string(),
            None => a.clone(),
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(&args)
        .current_dir(root())
        .output()
        .expect("oransim runs");
    // `reproduce` exits 1 while a published number is missed (docs/reproduction.md says which).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bless = std::env::var_os("ORANSIM_BLESS").is_some();
    let written = files_under(&scratch);
    assert!(written.len() > 1, "{command} wrote {written:?}");
    let mut differ = vec![];
    for rel in &written {
        let fresh = std::fs::read(scratch.join(rel)).expect("a written file");
        let committed = root().join("docs").join(rel);
        if std::fs::read(&committed).ok().as_deref() == Some(&fresh[..]) {
            continue;
        }
        if bless {
            std::fs::write(&committed, &fresh).expect("bless a docs file");
        } else {
            differ.push(format!("docs/{}", rel.display()));
        }
    }
    assert!(
        differ.is_empty(),
        "`{command}` writes something else than the committed {} (bless with ORANSIM_BLESS=1 after checking why)",
        differ.join(", ")
    );
}

/// The targets of a page's relative links (`[text](target)` outside fences) and of its code
/// spans that start with `../`: paths a reader follows.
fn relative_paths(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (_, rest) in line.match_indices("](").map(|(i, _)| line.split_at(i + 2)) {
            let target = rest.split([')', ' ']).next().unwrap_or("");
            let path = target.split('#').next().unwrap_or("");
            if !path.is_empty() && !path.contains("://") && !path.starts_with("mailto:") {
                out.push(path.to_string());
            }
        }
        for (k, span) in line.split('`').enumerate() {
            if k % 2 == 1 && span.starts_with("../") && !span.contains(' ') {
                out.push(span.to_string());
            }
        }
    }
    out
}

#[test]
fn every_relative_link_names_a_file_of_the_repository() {
    let root = root().canonicalize().expect("the repository root exists");
    let mut broken = vec![];
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("the page is readable");
        let name = page.strip_prefix(self::root()).unwrap_or(&page).display();
        for path in relative_paths(&text) {
            count += 1;
            let target = page.parent().expect("a page's directory").join(&path);
            match target.canonicalize() {
                Ok(t) if t.starts_with(&root) => {}
                Ok(_) => broken.push(format!(
                    "{}: {path} is outside the repository",
                    page.display()
                )),
                Err(e) => broken.push(format!("{name}: {path}: {e}")),
            }
        }
    }
    assert!(
        count > 20,
        "only {count} relative links found: the parser is broken"
    );
    assert!(
        broken.is_empty(),
        "links a reader cannot follow:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_harness_splits_redacts_and_elides() {
    assert_eq!(
        words(r#"oransim overhead --stack "eth/ipv4/esp(a,b)" 'x y' a\ b   # a comment"#),
        [
            "oransim",
            "overhead",
            "--stack",
            "eth/ipv4/esp(a,b)",
            "x y",
            "a b"
        ]
    );
    assert_eq!(words("oransim check a#b"), ["oransim", "check", "a#b"]);
    assert_eq!(
        redact(
            "run: 5 events in 0.012 s (14.57 M events/s), simulated 0.07 s",
            false
        )
        .unwrap(),
        "run: 5 events in * s (* M events/s), simulated 0.07 s"
    );
    assert_eq!(
        redact("    \"wall_s\": 0.126370001,", false).unwrap(),
        "    \"wall_s\": *,"
    );
    assert_eq!(
        redact(
            "macsec   64  166  2000/2000  0   4.05   3.83-4.33  -8%  yes",
            true
        )
        .unwrap(),
        "macsec 64 166 2000/2000 0 * *-* *% *"
    );
    assert_eq!(redact("warning: the machine was busy ...", true), None);
    let v = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&v(&["a", "..."]), &v(&["a", "b", "c"])));
    assert!(matches(&v(&["a", "...", "c"]), &v(&["a", "b", "c"])));
    assert!(!matches(&v(&["a", "...", "d"]), &v(&["a", "b", "c"])));
    assert!(!matches(&v(&["a", "b"]), &v(&["a", "b", "c"])));
    assert!(!matches(&v(&["x", "..."]), &v(&["a"])));
    let page = |text: &str| parse(&dedent(&text.split('\n').collect::<Vec<_>>()).0);
    assert!(matches!(
        page("```\ncargo test\n```")[..],
        [Item::Bad(1, _)]
    ));
    assert!(matches!(page("```sh\ncargo test\n```")[..], [NotRun(1, _)]));
    let items = page("1. a list\n\n   ```\n   $ oransim check a \\\n     b\n   out\n   ```");
    let [Item::Run(ex)] = &items[..] else {
        panic!("{items:?}")
    };
    assert_eq!((ex.line, ex.command.as_str()), (4, "oransim check a  b"));
    assert_eq!((ex.out_start, ex.out_end), (5, 6));
    assert_eq!(
        relative_paths(
            "see [a](docs/a.md#x) and [w](https://x.org/y) and `../shared/d.md`\n```\n[b](no.md)\n```\n"
        ),
        ["docs/a.md", "../shared/d.md"]
    );
}
