//! Which flag of a command set a key of the scenario the command built, for errors that name
//! the flag the user typed instead of a key of a file they never saw.

use model::ScenarioError;

/// Which flag of a command sets a scenario key the command builds: `(item, field, flag)`. A
/// key `link[0] ("du-ru").length` has item `link[0]` and field `length`; an `item` matches the
/// key's start (`link` matches every link, `node[1]` only the second node), a `field` the text
/// after the item's name exactly (`""`: the item itself, e.g. a link's overload). A quantity's
/// flag is the origin its value carries ([`profile::units::Quantity::origin`]); the table says
/// only which key the value was written to.
pub(crate) type FlagKeys<'a> = [(&'static str, &'static str, &'a str)];

/// `e` with the flag that set its key named first: `link[0] ("du-ru").length: ...` becomes
/// `--fibre (link[0] ("du-ru").length): ...`, so an error caused by a flag names the flag, and
/// the key the scenario checked follows in parentheses (`oransim init`, whose scenario the user
/// then edits). Keys no flag sets are left as they are.
pub(crate) fn name_flag(e: ScenarioError, flags: &FlagKeys<'_>) -> ScenarioError {
    rename_key(e, flags, true)
}

/// `e` with the flag that set its key in place of the key: `link[0] ("du-ru").length: ...`
/// becomes `--fibre: ...`. `oransim plan` builds its scenarios internally, so its errors name
/// only the flag the user typed, never a scenario key.
pub(crate) fn flag_only(e: ScenarioError, flags: &FlagKeys<'_>) -> ScenarioError {
    rename_key(e, flags, false)
}

fn rename_key(e: ScenarioError, flags: &FlagKeys<'_>, keep_key: bool) -> ScenarioError {
    e.map_key(|key| {
        let field = key.split_once("\").").map_or("", |(_, f)| f);
        let flag = flags
            .iter()
            .find(|(item, f, _)| key.starts_with(item) && *f == field)
            .map(|(_, _, flag)| *flag);
        match flag {
            Some(flag) if keep_key => format!("{flag} ({key})"),
            Some(flag) => flag.to_owned(),
            None => key,
        }
    })
}
