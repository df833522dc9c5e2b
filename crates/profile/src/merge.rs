//! Composing profiles: a base profile with operations measured elsewhere added to it, each op
//! keeping its provenance (`oransim profile merge`).
//!
//! The merged profile is the base's: its `[profile]` kind and implementation, `[host]`,
//! `[measurement]`, `[node]` and `[implementation]` (a real implementation's terms, fitted with
//! the base's op costs) are kept. Each added op keeps its own model, points, `fitted_to` and
//! `source`, with the source prefixed by where it came from (the added file, its profile's name,
//! kind, implementation, CPU and date), and its `implementation` set when it is not the base's,
//! so a RustCrypto op inside an OpenSSL-implementation profile says so. An op the base already
//! has is refused unless it is named to be replaced; an op in two added files is refused. An
//! added profile with an `[implementation]` section is refused: only the base's terms are kept,
//! and they describe the base's implementation.

use crate::file::ProfileFile;
use crate::{Op, Profile, ProfileError, ProfileKind};

/// What [`merge`] did: the merged file, and per added profile the ops taken from it.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The merged profile, to be checked with [`Profile::from_file`] and written.
    pub file: ProfileFile,
    /// For each added profile (by its origin), the names of the ops taken from it, sorted;
    /// those that replaced one of the base's are also in [`Merged::replaced`].
    pub added: Vec<(String, Vec<String>)>,
    /// The base's ops replaced by an added profile's, sorted.
    pub replaced: Vec<String>,
}

/// Merges the ops of `adds` into `base` (module docs) as a profile named `name`. `replace`
/// names the base's ops an added profile may replace; each must be one the base has and an
/// added profile has, or the merge is refused ([`ProfileError::MergeReplaceUnused`]). `note`,
/// if given, ends the generated description (e.g. how the hosts differ).
pub fn merge(
    base: &Profile,
    adds: &[&Profile],
    replace: &[Op],
    name: &str,
    note: Option<&str>,
) -> Result<Merged, ProfileError> {
    let mut file = base.file().clone();
    file.profile.name = name.to_owned();
    let base_impl = base.implementation().to_owned();
    // The origin each op of the merged profile came from: `None` for the base's.
    let mut from: std::collections::BTreeMap<String, Option<String>> =
        file.ops.keys().map(|k| (k.clone(), None)).collect();
    let replace: Vec<String> = replace.iter().map(Op::to_string).collect();
    let mut added = Vec::new();
    let mut replaced = Vec::new();
    for add in adds {
        if let Some(imp) = add.real_implementation() {
            return Err(ProfileError::MergeImplementation {
                origin: add.origin().to_owned(),
                implementation: imp.name.clone(),
                base: base.origin().to_owned(),
                base_has_one: base.real_implementation().is_some(),
            });
        }
        let prefix = provenance_prefix(add);
        let mut taken = Vec::new();
        for (op_name, op) in &add.file().ops {
            match from.get(op_name) {
                Some(Some(earlier)) => {
                    return Err(ProfileError::MergeOpInBoth {
                        origin: add.origin().to_owned(),
                        op: op_name.clone(),
                        other: earlier.clone(),
                        other_is_base: false,
                    });
                }
                Some(None) if !replace.contains(op_name) => {
                    return Err(ProfileError::MergeOpInBoth {
                        origin: add.origin().to_owned(),
                        op: op_name.clone(),
                        other: base.origin().to_owned(),
                        other_is_base: true,
                    });
                }
                Some(None) => replaced.push(op_name.clone()),
                None => {}
            }
            let mut op = op.clone();
            let implementation = op
                .implementation
                .take()
                .unwrap_or_else(|| add.implementation().to_owned());
            op.source = format!("{prefix}: {}", op.source);
            if base.kind() == ProfileKind::Fitted && op.fitted_to.is_empty() {
                // A fitted profile's values say what they were fitted to, or that they were not.
                op.source = format!("not fitted: {}", op.source);
            }
            op.implementation = (implementation != base_impl).then_some(implementation);
            file.ops.insert(op_name.clone(), op);
            from.insert(op_name.clone(), Some(add.origin().to_owned()));
            taken.push(op_name.clone());
        }
        for r in &add.file().profile.references {
            if !file.profile.references.contains(r) {
                file.profile.references.push(r.clone());
            }
        }
        added.push((add.origin().to_owned(), taken));
    }
    if let Some(unused) = replace.iter().find(|r| !replaced.contains(r)) {
        return Err(ProfileError::MergeReplaceUnused {
            op: unused.clone(),
            base: base.origin().to_owned(),
            in_base: base.file().ops.contains_key(unused),
        });
    }
    replaced.sort();
    let mut description = description(base, adds, &added, &replaced);
    if let Some(note) = note {
        description.push_str(&format!(". {}", note.trim()));
    }
    file.profile.description = Some(description);
    Ok(Merged {
        file,
        added,
        replaced,
    })
}

/// Where an added profile's ops came from: `from FILE (profile `NAME`, KIND, IMPLEMENTATION,
/// CPU, DATE)`, the parts the profile records.
fn provenance_prefix(add: &Profile) -> String {
    let mut parts = vec![
        format!("profile `{}`", add.name()),
        kind_word(add.kind()).to_owned(),
        format!("implementation {}", add.implementation()),
    ];
    if let Some(tool) = add.measurement().map(|m| &m.tool) {
        parts.push(format!("by {tool}"));
    }
    if let Some(cpu) = add.host().and_then(|h| h.cpu_model.as_ref()) {
        parts.push(format!("on {cpu}"));
    }
    if let Some(date) = &add.file().profile.date {
        parts.push(date.clone());
    }
    format!(
        "merged from {} ({}; its [host] and [measurement] tell the rest)",
        add.origin(),
        parts.join(", ")
    )
}

/// The merged profile's description: that it was merged, from which files, which ops, and
/// whose costs they are.
fn description(
    base: &Profile,
    adds: &[&Profile],
    added: &[(String, Vec<String>)],
    replaced: &[String],
) -> String {
    let mut text = format!(
        "Merged by `oransim profile merge`: the base {} (profile `{}`, implementation {}",
        base.origin(),
        base.name(),
        base.implementation()
    );
    match &base.file().profile.description {
        Some(d) => text.push_str(&format!(": {d})")),
        None => text.push(')'),
    }
    for (add, (origin, ops)) in adds.iter().zip(added) {
        let ops = if ops.is_empty() {
            "no ops".to_owned()
        } else {
            ops.join(", ")
        };
        text.push_str(&format!(
            "; with {ops} from {origin} ({} {}",
            kind_word(add.kind()),
            add.implementation()
        ));
        if let Some(cpu) = add.host().and_then(|h| h.cpu_model.as_ref()) {
            text.push_str(&format!(" on {cpu}"));
        }
        if let Some(date) = &add.file().profile.date {
            text.push_str(&format!(", {date}"));
        }
        text.push(')');
    }
    if !replaced.is_empty() {
        text.push_str(&format!("; replacing the base's {}", replaced.join(", ")));
    }
    text.push_str(
        ". An added op's cost is its own file's implementation's, measured where that file says (the op's source and implementation), not the base's implementation's",
    );
    text
}

fn kind_word(kind: ProfileKind) -> &'static str {
    match kind {
        ProfileKind::Measured => "measured",
        ProfileKind::Fitted => "fitted",
        ProfileKind::Imported => "imported",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeyAction, KeyAlg};

    fn profile(name: &str, implementation: &str, ops: &[&str], extra: &str) -> Profile {
        let mut text = format!(
            r#"format_version = 1

[profile]
name = "{name}"
kind = "measured"
implementation = "{implementation}"
description = "{name}'s costs"
date = "2026-11-28"

[node]
cores = {{ count = 2, source = "nproc" }}
stack = {{ cost = "0ns", source = "s" }}
io = {{ cost = "2us", source = "s" }}
"#
        );
        for op in ops {
            text.push_str(&format!(
                "\n[ops.\"{op}\"]\nmodel = \"constant\"\nfixed = \"10us\"\nsource = \"{name} measured it\"\n"
            ));
        }
        text.push_str(extra);
        Profile::from_toml_str(&text, &format!("{name}.toml")).unwrap()
    }

    const STRONGSWAN: &str = r#"
[implementation]
name = "strongswan"
version = "5.9.8"
data_path = "kernel-libipsec"
source = "a run"

[implementation.terms."ike.latency"]
value = 1000.0
unit = "ns"
source = "fit"
"#;

    #[test]
    fn added_ops_keep_their_provenance_and_the_base_its_terms() {
        let base = profile("base", "openssl", &["x25519.keygen"], STRONGSWAN);
        let add = profile(
            "add",
            "rustcrypto",
            &["mlkem768.keygen", "mlkem768.encaps"],
            "",
        );
        let m = merge(&base, &[&add], &[], "merged", None).unwrap();
        assert_eq!(
            m.added,
            [(
                "add.toml".to_owned(),
                vec!["mlkem768.encaps".to_owned(), "mlkem768.keygen".to_owned()]
            )]
        );
        let p = Profile::from_file(m.file, "merged.toml").unwrap();
        assert_eq!(p.name(), "merged");
        assert_eq!(p.implementation(), "openssl");
        assert_eq!(p.term(crate::Term::IkeLatency), Some(1000.0));
        let k = p
            .op(&Op::key(KeyAlg::MlKem768, KeyAction::Keygen).unwrap())
            .unwrap();
        assert_eq!(k.implementation, "rustcrypto");
        assert!(
            k.provenance
                .source
                .starts_with("merged from add.toml (profile `add`, measured, implementation rustcrypto, 2026-11-28;"),
            "{}",
            k.provenance.source
        );
        assert!(k.provenance.source.ends_with(": add measured it"));
        let x = p
            .op(&Op::key(KeyAlg::X25519, KeyAction::Keygen).unwrap())
            .unwrap();
        assert_eq!(x.implementation, "openssl");
        assert_eq!(x.provenance.source, "base measured it");
        let d = p.file().profile.description.as_deref().unwrap();
        assert!(d.starts_with("Merged by `oransim profile merge`: the base base.toml (profile `base`, implementation openssl: base's costs); with mlkem768.encaps, mlkem768.keygen from add.toml (measured rustcrypto, 2026-11-28)"), "{d}");
    }

    #[test]
    fn an_op_in_both_is_refused_unless_replaced() {
        let base = profile("base", "openssl", &["x25519.keygen"], "");
        let add = profile("add", "rustcrypto", &["x25519.keygen"], "");
        let e = merge(&base, &[&add], &[], "m", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("add.toml: `ops.\"x25519.keygen\"`: base.toml has this operation too; "),
            "{e}"
        );
        let m = merge(
            &base,
            &[&add],
            &[Op::key(KeyAlg::X25519, KeyAction::Keygen).unwrap()],
            "m",
            None,
        )
        .unwrap();
        assert_eq!(m.replaced, ["x25519.keygen"]);
        assert!(
            m.file.ops["x25519.keygen"]
                .source
                .contains("add measured it")
        );
        // Two added files with the same op: refused whatever is replaced.
        let again = profile("again", "aws-lc-rs", &["x25519.keygen"], "");
        let e = merge(
            &base,
            &[&add, &again],
            &[Op::key(KeyAlg::X25519, KeyAction::Keygen).unwrap()],
            "m",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("again.toml: `ops.\"x25519.keygen\"`: add.toml has this operation too (another added file)"), "{e}");
    }

    #[test]
    fn a_replacement_that_replaces_nothing_is_refused() {
        let base = profile("base", "openssl", &["x25519.keygen"], "");
        let add = profile("add", "rustcrypto", &["mlkem768.keygen"], "");
        let e = merge(
            &base,
            &[&add],
            &[Op::key(KeyAlg::X25519, KeyAction::Keygen).unwrap()],
            "m",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`x25519.keygen` is named to be replaced, but no added profile has it"),
            "{e}"
        );
        let e = merge(
            &base,
            &[&add],
            &[Op::key(KeyAlg::MlKem768, KeyAction::Keygen).unwrap()],
            "m",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("the base base.toml has no such operation"),
            "{e}"
        );
    }

    #[test]
    fn an_added_implementation_is_refused() {
        let plain = profile("plain", "rustcrypto", &["mlkem768.keygen"], "");
        let ss = profile("ss", "openssl", &["x25519.keygen"], STRONGSWAN);
        let e = merge(&ss, &[&ss.clone()], &[], "m", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("ss.toml: `implementation`: the added profile has `strongswan`'s terms"),
            "{e}"
        );
        assert!(e.contains("the base ss.toml has its own"), "{e}");
        let e = merge(&plain, &[&ss], &[], "m", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("give ss.toml as the base"), "{e}");
    }

    #[test]
    fn a_fitted_base_says_an_added_op_was_not_fitted() {
        let text = |kind| {
            format!(
                "format_version = 1\n[profile]\nname = \"f\"\nkind = \"{kind}\"\nimplementation = \"linux\"\n[node]\ncores = {{ count = 1, source = \"paper\" }}\nstack = {{ cost = \"1us\", source = \"paper\" }}\nio = {{ cost = \"1us\", source = \"paper\" }}\n"
            )
        };
        let base = Profile::from_toml_str(&text("fitted"), "f.toml").unwrap();
        let add = profile("add", "rustcrypto", &["mlkem768.keygen"], "");
        let m = merge(&base, &[&add], &[], "m", None).unwrap();
        let op = &m.file.ops["mlkem768.keygen"];
        assert!(
            op.source.starts_with("not fitted: merged from add.toml"),
            "{}",
            op.source
        );
        assert_eq!(op.implementation.as_deref(), Some("rustcrypto"));
    }
}
