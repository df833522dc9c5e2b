//! Checks of a profile file's parts, each error naming the key: provenance, per-packet costs,
//! operation names and costs, a real implementation's terms.

use crate::file::{CostFile, ImplementationFile, OpFile};
use crate::{
    CostModel, OpCost, PacketCost, Point, ProfileError, Provenance, RealImplementation, Term, units,
};

pub(crate) fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn provenance(
    source: &str,
    fitted_to: &[String],
    key: &str,
    invalid: &dyn Fn(String, String) -> ProfileError,
) -> Result<Provenance, ProfileError> {
    if source.trim().is_empty() {
        return Err(invalid(
            key.to_string(),
            "must say where the value comes from (a measurement, or a paper's figure or table)"
                .into(),
        ));
    }
    Ok(Provenance {
        source: source.to_string(),
        fitted_to: fitted_to.to_vec(),
    })
}

pub(crate) fn packet_cost(
    c: &CostFile,
    key: &str,
    invalid: &dyn Fn(String, String) -> ProfileError,
) -> Result<PacketCost, ProfileError> {
    let ns = units::parse_duration_ns(&c.cost)
        .map_err(|m| invalid(format!("{key}.cost"), m.to_string()))?;
    let provenance = provenance(&c.source, &c.fitted_to, &format!("{key}.source"), invalid)?;
    Ok(PacketCost {
        ns,
        per_byte_ns: 0.0,
        provenance,
    })
}

pub(crate) fn op_cost(
    op: &OpFile,
    key: &str,
    default_impl: &str,
    invalid: &dyn Fn(String, String) -> ProfileError,
) -> Result<OpCost, ProfileError> {
    let model = CostModel::parse(&op.model).ok_or_else(|| {
        invalid(
            format!("{key}.model"),
            format!("`{}` is not one of {}", op.model, quoted(CostModel::NAMES)),
        )
    })?;
    let fixed_ns = units::parse_duration_ns(&op.fixed)
        .map_err(|m| invalid(format!("{key}.fixed"), m.to_string()))?;
    let per_byte_ns = op
        .per_byte
        .as_deref()
        .map(units::parse_per_byte_ns)
        .transpose()
        .map_err(|m| invalid(format!("{key}.per_byte"), m.to_string()))?;
    match (model, per_byte_ns) {
        (CostModel::Linear, None) => {
            return Err(invalid(
                format!("{key}.per_byte"),
                "missing; a `linear` op needs a cost per byte such as `0.4ns/B`".into(),
            ));
        }
        (CostModel::Constant, Some(_)) => {
            return Err(invalid(
                format!("{key}.per_byte"),
                "a `constant` op has no cost per byte; use model = \"linear\"".into(),
            ));
        }
        _ => {}
    }
    let provenance = provenance(&op.source, &op.fitted_to, &format!("{key}.source"), invalid)?;
    if let Some(r2) = op.r2
        && !(r2.is_finite() && r2 <= 1.0)
    {
        return Err(invalid(
            format!("{key}.r2"),
            format!("{r2} is not a coefficient of determination (a number up to 1)"),
        ));
    }
    if let Some(r) = op.max_rel_residual
        && !(r.is_finite() && r >= 0.0)
    {
        return Err(invalid(
            format!("{key}.max_rel_residual"),
            format!("{r} must be a finite number, zero or more"),
        ));
    }
    let mut points = Vec::with_capacity(op.points.len());
    for (i, p) in op.points.iter().enumerate() {
        let pk = format!("{key}.points[{i}]");
        let len_bytes = units::parse_len_bytes(&p.len)
            .map_err(|m| invalid(format!("{pk}.len"), m.to_string()))?;
        let dur = |v: &str, field: &str| {
            units::parse_duration_ns(v).map_err(|m| invalid(format!("{pk}.{field}"), m.to_string()))
        };
        let median_ns = dur(&p.median, "median")?;
        let p5_ns = p.p5.as_deref().map(|v| dur(v, "p5")).transpose()?;
        let p95_ns = p.p95.as_deref().map(|v| dur(v, "p95")).transpose()?;
        if p5_ns.is_some_and(|p5| p5 > median_ns) || p95_ns.is_some_and(|p95| p95 < median_ns) {
            return Err(invalid(
                pk,
                "percentiles out of order; need p5 <= median <= p95".into(),
            ));
        }
        if p.samples == Some(0) {
            return Err(invalid(
                format!("{pk}.samples"),
                "must be at least 1".into(),
            ));
        }
        if let Some(prev) = points.last().map(|q: &Point| q.len_bytes)
            && len_bytes <= prev
        {
            return Err(invalid(
                format!("{pk}.len"),
                format!("points must be in increasing length; {len_bytes} B follows {prev} B"),
            ));
        }
        points.push(Point {
            len_bytes,
            median_ns,
            p5_ns,
            p95_ns,
            samples: p.samples,
        });
    }
    if model == CostModel::Piecewise && points.len() < 2 {
        return Err(invalid(
            format!("{key}.points"),
            format!(
                "a `piecewise` op needs at least 2 points to interpolate, found {}",
                points.len()
            ),
        ));
    }
    Ok(OpCost {
        model,
        fixed_ns,
        per_byte_ns,
        points,
        r2: op.r2,
        max_rel_residual: op.max_rel_residual,
        implementation: op
            .implementation
            .clone()
            .unwrap_or_else(|| default_impl.to_string()),
        provenance,
    })
}

/// Checks `[implementation]`: a known name, a data path, and terms that are that
/// implementation's [`Term`]s, each finite (non-negative unless [`Term::signed`]), in its
/// [`Term::unit`], with a source.
pub(crate) fn check_implementation(
    imp: &ImplementationFile,
    invalid: &dyn Fn(String, String) -> ProfileError,
) -> Result<(), ProfileError> {
    let implementation = RealImplementation::parse(&imp.name).ok_or_else(|| {
        let names = RealImplementation::ALL.map(RealImplementation::name);
        invalid(
            "implementation.name".into(),
            format!("`{}` is not one of {}", imp.name, quoted(&names)),
        )
    })?;
    for (key, v) in [
        ("implementation.version", &imp.version),
        ("implementation.data_path", &imp.data_path),
        ("implementation.source", &imp.source),
    ] {
        if v.trim().is_empty() {
            return Err(invalid(key.into(), "must not be empty".into()));
        }
    }
    for (name, t) in &imp.terms {
        let key = format!("implementation.terms.\"{name}\"");
        let allowed = || quoted(&implementation.terms().map(Term::name).collect::<Vec<_>>());
        let term = match Term::parse(name) {
            Some(term) if term.implementation() == implementation => term,
            Some(term) => {
                return Err(invalid(
                    key,
                    format!(
                        "`{name}` is a term of `{}`, not of `{implementation}`; `{implementation}`'s terms are {}",
                        term.implementation(),
                        allowed()
                    ),
                ));
            }
            None => {
                return Err(invalid(
                    key,
                    format!(
                        "`{name}` is not a term of `{implementation}`; its terms are {}",
                        allowed()
                    ),
                ));
            }
        };
        if !t.value.is_finite() || (!term.signed() && t.value < 0.0) {
            return Err(invalid(
                format!("{key}.value"),
                format!(
                    "{} is not a finite value{}",
                    t.value,
                    if term.signed() {
                        ""
                    } else {
                        " >= 0 (the term is a cost, a rate or a count)"
                    }
                ),
            ));
        }
        let (lo, hi) = term.range();
        if !(lo..=hi).contains(&t.value) {
            return Err(invalid(
                format!("{key}.value"),
                format!(
                    "{} is outside what a measurement of `{name}` can be: {lo} to {hi} {}",
                    t.value,
                    term.unit()
                ),
            ));
        }
        if term.unit() == crate::TermUnit::Count && t.value.fract() != 0.0 {
            return Err(invalid(
                format!("{key}.value"),
                format!("{} is not a whole number of `{name}`", t.value),
            ));
        }
        if t.unit != term.unit().as_str() {
            return Err(invalid(
                format!("{key}.unit"),
                format!(
                    "`{}` is not the unit of `{name}`, which is `{}`",
                    t.unit,
                    term.unit()
                ),
            ));
        }
        if t.spread.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(invalid(
                format!("{key}.spread"),
                "must be a finite fraction >= 0 (0.12 = 12%)".into(),
            ));
        }
        if t.source.trim().is_empty() {
            return Err(invalid(format!("{key}.source"), "must not be empty".into()));
        }
    }
    Ok(())
}
