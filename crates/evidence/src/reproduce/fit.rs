//! Fits in code and their leave-one-out cross-validation.
//!
//! Where a profile has fewer parameters than the published numbers it was fitted to, the fit
//! is a weighted least-squares problem that this module solves: each observation is linear in
//! the parameters, `y_i = g_i + sum_j a_ij theta_j`, weighted by `1 / y_i` so that every number
//! counts by its relative error. [`leave_one_out`] refits without each observation in turn and
//! predicts it: the error of that prediction, printed beside the fitted row's own error, says
//! how much the row is evidence beyond the fit. A parameter that only the left-out observation
//! determines makes its prediction "not identifiable".
//!
//! The committed profile files hold the full fit's values; `crates/evidence/tests/evidence.rs`
//! checks that they equal what [`lioy_table1`] and [`ofh_fig11`] compute.

use std::path::Path;

use profile::{Direction, Profile};
use protocols::{AesKey, Suite};

use super::ofh::{OFH_PROFILE, ofh_added};
use super::target::Targets;
use super::variant::Doc;
use super::{ReproduceError, Result};

/// One published number as a linear function of the parameters.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The target's id.
    pub id: String,
    /// The published value.
    pub y: f64,
    /// The part that does not depend on the parameters.
    pub g: f64,
    /// The coefficient of each parameter.
    pub a: Vec<f64>,
}

/// The weighted least-squares parameters of `obs` (`None` when they are not identifiable:
/// fewer independent observations than parameters).
pub fn least_squares(obs: &[Observation]) -> Option<Vec<f64>> {
    let n = obs.first()?.a.len();
    // Normal equations (A^T W A) theta = A^T W (y - g), W = diag(1 / y^2).
    let mut m = vec![vec![0.0; n + 1]; n];
    for o in obs {
        let w = 1.0 / (o.y * o.y);
        for (row, &ai) in m.iter_mut().zip(&o.a) {
            for (cell, &aj) in row.iter_mut().zip(&o.a) {
                *cell += w * ai * aj;
            }
            row[n] += w * ai * (o.y - o.g);
        }
    }
    // Gaussian elimination with partial pivoting; a pivot below 1e-12 of the matrix's scale is
    // a rank deficiency.
    let scale = m
        .iter()
        .flat_map(|r| r[..n].iter())
        .fold(0.0f64, |s, x| s.max(x.abs()));
    for col in 0..n {
        let piv = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[piv][col].abs() <= 1e-12 * scale {
            return None;
        }
        m.swap(col, piv);
        let pivot_row = m[col].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (cell, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *cell -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The model's value of `o` with parameters `theta`.
pub fn predict(o: &Observation, theta: &[f64]) -> f64 {
    o.g + o.a.iter().zip(theta).map(|(a, t)| a * t).sum::<f64>()
}

/// For each observation, its value predicted by the fit of all the others (`None`: a
/// parameter is not identifiable without it).
pub fn leave_one_out(obs: &[Observation]) -> Vec<Option<f64>> {
    (0..obs.len())
        .map(|i| {
            let rest: Vec<Observation> = obs
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, o)| o.clone())
                .collect();
            least_squares(&rest).map(|theta| predict(&obs[i], &theta))
        })
        .collect()
}

/// The line `(fixed [ns], per byte [ns/B])` a suite's ops get from fitted parameters.
type Lines = fn(&[f64], Suite) -> Option<(f64, f64)>;

/// A fit group: its observations, the full fit and the leave-one-out predictions.
#[derive(Debug, Clone)]
pub struct Fit {
    /// What the parameters are, in order, with units.
    pub params: Vec<&'static str>,
    /// The observations.
    pub obs: Vec<Observation>,
    /// The full fit.
    pub theta: Vec<f64>,
    /// Leave-one-out predictions, by observation.
    pub loo: Vec<Option<f64>>,
    /// Observations are the targets' values times this (e.g. 1000: us -> ns).
    pub scale: f64,
    /// How the fitted parameters make a profile: the testbed file and the suites' lines.
    lines: Option<(&'static str, Lines)>,
    /// Each open op is this times its seal op's line.
    open_over_seal: f64,
}

impl Fit {
    fn new(params: Vec<&'static str>, obs: Vec<Observation>, scale: f64) -> Result<Fit> {
        let theta = least_squares(&obs).ok_or_else(|| ReproduceError::Variant {
            file: super::TARGETS_FILE.into(),
            problem: format!("the fit of {params:?} is not identifiable"),
        })?;
        let loo = leave_one_out(&obs);
        Ok(Fit {
            params,
            obs,
            theta,
            loo,
            scale,
            lines: None,
            open_over_seal: 1.0,
        })
    }

    /// The testbed's profile with the fitted ops.
    pub fn profile(&self, root: &Path) -> Result<Profile> {
        let (file, lines) = self.lines.ok_or_else(|| ReproduceError::Variant {
            file: super::TARGETS_FILE.into(),
            problem: format!("the fit of {:?} makes no profile", self.params),
        })?;
        let testbed = Profile::load(root.join(file))?;
        with_cipher_lines(&testbed, testbed.name(), None, |s, d| {
            let k = if d == Direction::Open {
                self.open_over_seal
            } else {
                1.0
            };
            Ok(lines(&self.theta, s).map(|(f, p)| (k * f, k * p)))
        })
    }

    /// The leave-one-out prediction of target `id` in the target's unit, if it is an
    /// observation of this fit (outer `None`), and identifiable (inner `None` when not).
    pub fn loo_of(&self, id: &str) -> Option<Option<f64>> {
        self.obs
            .iter()
            .position(|o| o.id == id)
            .map(|i| self.loo[i].map(|v| v / self.scale))
    }
}

fn value(t: &Targets, id: &str) -> Result<f64> {
    t.get(id)?.value.ok_or_else(|| ReproduceError::Variant {
        file: super::TARGETS_FILE.into(),
        problem: format!("target {id} has no value to fit to"),
    })
}

/// The bytes MACsec protects in Lioy's 1514 B frames \[bytes\]: the EtherType and the 1500 B IP
/// packet (`protocols::Stack::protected_len`).
pub const LIOY_L: u64 = 1502;

/// Lioy et al. Table I for one AES-NI setting (`"aesni"` or `"noaesni"`): macsec_start_xmit =
/// F + p x L and macsec_encrypt = p x L per mode, one framing cost F shared by the two modes
/// (the MACsec work around the cipher: SecTAG, skb handling), p per mode; parameters F \[ns\],
/// p_gcm \[ns/B\], p_gmac \[ns/B\]. Four observations, three parameters.
pub fn lioy_table1(t: &Targets, ni: &str) -> Result<Fit> {
    let l = LIOY_L as f64;
    let mut obs = vec![];
    for (mode, idx) in [("enc", 1usize), ("int", 2)] {
        for (what, f) in [("start-xmit", 1.0), ("encrypt", 0.0)] {
            let id = format!("lioy2022/table1/{what}-{mode}-{ni}");
            let mut a = vec![f, 0.0, 0.0];
            a[idx] = l;
            obs.push(Observation {
                y: value(t, &id)? * 1e3,
                id,
                g: 0.0,
                a,
            });
        }
    }
    Fit::new(vec!["F [ns]", "p_gcm [ns/B]", "p_gmac [ns/B]"], obs, 1e3)
}

/// 000 Fig. 11: MACsec's added delay at 64 and 9000 B in both modes through ofh_size.toml's two
/// nodes, each op `c0 + s_mode x L` with one fixed cost c0 shared by the modes (the Linux
/// MACsec path around the cipher, the asynchronous crypto hand-off) and a slope per mode;
/// parameters c0 \[ns\], s_gcm \[ns/B\], s_gmac \[ns/B\]. The added delay is linear in them at
/// this unloaded ping: its coefficients come from the DES with unit costs. Four observations
/// (the targets the `[inputs]` of study `ofh_size` name), three parameters.
pub fn ofh_fig11(root: &Path, t: &Targets) -> Result<Fit> {
    let testbed = Profile::load(root.join(OFH_PROFILE))?;
    let base = Doc::load(root, "scenarios/ofh_size.toml")?;
    let r = open_over_seal(t)?;
    let with = |c0: f64, s_gcm: f64, s_gmac: f64| -> Result<Profile> {
        with_cipher_lines(&testbed, "ofh-fig11-fit", None, |suite, d| {
            let k = if d == Direction::Open { r } else { 1.0 };
            Ok(match fig11_suite(suite) {
                Some(Fig11::Gcm) => Some((k * c0, k * s_gcm)),
                Some(Fig11::Gmac) => Some((k * c0, k * s_gmac)),
                None => None,
            })
        })
    };
    let zero = with(0.0, 0.0, 0.0)?;
    let units = [
        with(1.0, 0.0, 0.0)?,
        with(0.0, 1.0, 0.0)?,
        with(0.0, 0.0, 1.0)?,
    ];
    let mut obs = vec![];
    let small = small_frame(t)?;
    let points = super::study::with_inputs_of(root, t, FIG11_STUDY)?;
    for (name, mode, frame) in [
        ("on-small", 0usize, small),
        ("on-9000", 0, 9000),
        ("off-small", 1, small),
        ("off-9000", 1, 9000),
    ] {
        let id = points.input(name)?;
        let g = ofh_added(&base, &zero, mode, frame)? * 1e3;
        let a = units
            .iter()
            .map(|p| Ok(ofh_added(&base, p, mode, frame)? * 1e3 - g))
            .collect::<Result<Vec<f64>>>()?;
        obs.push(Observation {
            id: id.into(),
            y: value(t, id)? * 1e3,
            g,
            a,
        });
    }
    let mut fit = Fit::new(vec!["c0 [ns]", "s_gcm [ns/B]", "s_gmac [ns/B]"], obs, 1e3)?;
    fit.open_over_seal = r;
    fit.lines = Some((OFH_PROFILE, |theta, suite| match fig11_suite(suite) {
        Some(Fig11::Gcm) => Some((theta[0], theta[1])),
        Some(Fig11::Gmac) => Some((theta[0], theta[2])),
        None => None,
    }));
    Ok(fit)
}

/// The study whose `[inputs]` name the targets of Fig. 11's four points (`on-small`,
/// `on-9000`, `off-small`, `off-9000`), the observations of [`ofh_fig11`].
const FIG11_STUDY: &str = "ofh_size";

/// The two MACsec modes of 000 Fig. 11.
enum Fig11 {
    /// Confidentiality on: GCM-AES-128.
    Gcm,
    /// Integrity only: GMAC-AES-128.
    Gmac,
}

/// The Fig. 11 mode whose line `suite` takes; `None` for the suites the i9 profile keeps.
fn fig11_suite(suite: Suite) -> Option<Fig11> {
    match suite {
        Suite::Aes128Gcm => Some(Fig11::Gcm),
        Suite::Gmac {
            aes: AesKey::Aes128,
        } => Some(Fig11::Gmac),
        Suite::Copy
        | Suite::Aes256Gcm
        | Suite::ChaCha20Poly1305
        | Suite::Aes128Ccm
        | Suite::Aes256Ccm
        | Suite::AesCbcHmac { .. }
        | Suite::Gmac {
            aes: AesKey::Aes256,
        } => None,
    }
}

/// Open's cost over seal's on the i9 (Fig. 11 publishes only the round trip): the assumption
/// `ofh.open-over-seal`.
fn open_over_seal(t: &Targets) -> Result<f64> {
    let r = t.assume("ofh.open-over-seal")?;
    if !(r.is_finite() && r > 0.0) {
        return Err(ReproduceError::Variant {
            file: super::ASSUMPTIONS_FILE.into(),
            problem: format!("ofh.open-over-seal = {r} is not a positive ratio"),
        });
    }
    Ok(r)
}

/// Fig. 11's "small frame" \[bytes\]: the assumption `ofh.small-frame`.
pub(super) fn small_frame(t: &Targets) -> Result<usize> {
    let v = t.assume("ofh.small-frame")?;
    if !(v.is_finite() && (64.0..=9000.0).contains(&v)) {
        return Err(ReproduceError::Variant {
            file: super::ASSUMPTIONS_FILE.into(),
            problem: format!("ofh.small-frame = {v} B is not a frame size of 64..=9000 B"),
        });
    }
    Ok(v.round() as usize)
}

/// Where replaced ops come from: their `source` and the targets they were fitted to.
pub(super) struct Provenance<'a> {
    /// The ops' `source`.
    pub source: String,
    /// The ops' `fitted_to`.
    pub fitted_to: &'a [&'a str],
}

/// `testbed` (renamed `name`) with each cipher op for which `line` gives `fixed + per_byte x L`
/// (\[ns\], \[ns/B\]) replaced by that line; the other ops and the node terms stay the
/// testbed's. The replaced ops keep the testbed's provenance unless `provenance` gives theirs.
pub(super) fn with_cipher_lines(
    testbed: &Profile,
    name: &str,
    provenance: Option<&Provenance<'_>>,
    line: impl Fn(Suite, Direction) -> Result<Option<(f64, f64)>>,
) -> Result<Profile> {
    let mut file = testbed.file().clone();
    file.profile.name = name.to_owned();
    for (op_name, op) in file.ops.iter_mut() {
        let Ok(profile::Op::Cipher(suite, direction)) = op_name.parse() else {
            continue;
        };
        if let Some((fixed, per_byte)) = line(suite, direction)? {
            op.model = "linear".into();
            op.fixed = format!("{fixed}ns");
            op.per_byte = Some(format!("{per_byte}ns/B"));
            op.points.clear();
            op.r2 = None;
            op.max_rel_residual = None;
            op.implementation = None;
            if let Some(p) = provenance {
                op.source = p.source.clone();
                op.fitted_to = p.fitted_to.iter().map(|s| (*s).to_owned()).collect();
            }
        }
    }
    Ok(Profile::from_file(file, name)?)
}

/// Whether `op` of `prof` is the line `fixed + per_byte x L` to 5 significant digits (what
/// the profile files print).
pub fn op_is_line(prof: &Profile, suite: Suite, fixed_ns: f64, per_byte_ns: f64) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() <= 5e-5 * b.abs().max(1e-9);
    [Direction::Seal, Direction::Open].into_iter().all(|d| {
        prof.cipher(suite, d).is_ok_and(|op| {
            close(op.fixed_ns, fixed_ns) && close(op.per_byte_ns.unwrap_or(0.0), per_byte_ns)
        })
    })
}
