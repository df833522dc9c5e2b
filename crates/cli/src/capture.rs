//! The capture file of `oransim run --pcap`: which flows it holds (`--pcap-flow`, refused by
//! name), and the sink that writes [`model::capture`]'s frames into a pcapng stream
//! ([`printer::pcap::Writer`]) on an [`AtomicFile`], one interface per link, described as the
//! link's first frame arrives. Each flow direction's security layers are sealed with keys of
//! its own, derived from the run's seed ([`live::FrameSealer::keyed`]), listed in the
//! key files written beside the capture.

use anyhow::{Context, bail};

use std::collections::HashMap;

use model::Scenario;
use model::capture::{DataFrame, FrameSink};
use printer::pcap::{Interface, LinkType, Writer};
use sim_core::Direction;

use crate::output::AtomicFile;

/// Most flow names an error or note lists before it says how many more there are.
const LISTED: usize = 10;

/// `names`, at most [`LISTED`] of them, quoted and comma-separated, then how many are left out.
fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = names.len();
    let mut out: Vec<String> = names.take(LISTED).map(|s| format!("\"{s}\"")).collect();
    if n > LISTED {
        out.push(format!("and {} more", n - LISTED));
    }
    out.join(", ")
}

/// The flows to capture: those `--pcap-flow` names (each must exist and be writable), or by
/// default every flow whose frames can be written, the others left out with one note on stderr.
pub(crate) fn flows(scenario: &Scenario, names: &[String]) -> anyhow::Result<Vec<usize>> {
    let flows = &scenario.network.flows;
    if names.is_empty() {
        let why = model::capture::unwritable_all(scenario);
        let (ok, left): (Vec<usize>, Vec<usize>) =
            (0..flows.len()).partition(|&f| why[f].is_none());
        if ok.is_empty() {
            let why = why[0].clone().unwrap_or_default();
            bail!(
                "--pcap: no flow of the scenario has frames a capture can write ({why}); \
                 allowed: flows whose source has a `stack` of layers oransim writes"
            );
        }
        if !left.is_empty() {
            eprintln!(
                "note: --pcap: {} flow(s) left out of the capture, their frames cannot be written: {} (first: {})",
                left.len(),
                listed(left.iter().map(|&f| flows[f].name.as_str())),
                why[left[0]].clone().unwrap_or_default()
            );
        }
        return Ok(ok);
    }
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let Some(f) = flows.iter().position(|fl| fl.name == *name) else {
            bail!(
                "--pcap-flow {name:?}: the scenario has no flow of that name; its flows are {}",
                listed(flows.iter().map(|fl| fl.name.as_str()))
            );
        };
        if let Some(why) = model::capture::unwritable(scenario, f) {
            bail!(
                "--pcap-flow {name:?}: its frames cannot be written: {why}; allowed: flows with a \
                 `stack` of layers oransim writes"
            );
        }
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// The pcapng file of a run: an interface per link and frame type, described when the first
/// frame of that link and type comes.
pub(crate) struct PcapSink<'s> {
    scenario: &'s Scenario,
    writer: Writer<AtomicFile>,
    /// Per link: its interface for Ethernet frames and for IP frames (`u32::MAX`: none yet).
    interfaces: Vec<[u32; 2]>,
    /// Per tunnel: its IKE SA's keys (derived from the seed and the tunnel) with the datagrams
    /// sealed under each direction's key so far (each datagram's IV number).
    ike: std::collections::BTreeMap<u32, (live::ike::IkeKeys, [u64; 2])>,
    /// The run's master seed: the data frames' keys derive from it.
    seed: u64,
    /// Per flow and direction (`2 * flow + direction`): its sealer, or None when its stack
    /// has a suite no sealer seals (its frames stay unsealed).
    sealers: HashMap<usize, Option<live::FrameSealer>>,
    /// The sealed security associations' keys by `2 * flow + direction`: Wireshark's `esp_sa`
    /// rows and every layer's key lines.
    sa_keys: std::collections::BTreeMap<usize, (String, String)>,
    /// The flows left unsealed \[count\] and the first one's reason.
    unsealed: (usize, Option<String>),
}

/// What a capture wrote beside its frames ([`PcapSink::finish`]).
#[derive(Debug, Default)]
pub(crate) struct KeyFiles {
    /// Wireshark's IKEv2 decryption table, when handshake datagrams were sealed.
    pub ikev2: Option<String>,
    /// Wireshark's ESP SA table (`esp_sa`), when ESP frames were sealed.
    pub esp_sa: Option<String>,
    /// Every sealed security association's keys as text, when data frames were sealed.
    pub keys: Option<String>,
    /// Flow directions left unsealed \[count\], and the first one's reason.
    pub unsealed: (usize, Option<String>),
}

/// Tunnel `t`'s IKE SPIs: `oraI` and `oraR` in ASCII followed by `t + 1` (big-endian), so
/// every tunnel of a run is its own IKE SA, and never a zero SPI.
fn tunnel_spis(t: u32) -> ([u8; 8], [u8; 8]) {
    let n = t.wrapping_add(1).to_be_bytes();
    let mut i = *b"oraI\0\0\0\0";
    let mut r = *b"oraR\0\0\0\0";
    i[4..].copy_from_slice(&n);
    r[4..].copy_from_slice(&n);
    (i, r)
}

/// The secret a flow direction's keys derive from: the run's seed, the flow and the direction
/// (big-endian), so every security association of a run has its own keys and the same run
/// has the same.
fn secret(seed: u64, flow: usize, direction: Direction) -> [u8; 17] {
    let mut s = [0u8; 17];
    s[..8].copy_from_slice(&seed.to_be_bytes());
    s[8..16].copy_from_slice(&(flow as u64).to_be_bytes());
    s[16] = u8::from(direction == Direction::Reverse);
    s
}

impl<'s> PcapSink<'s> {
    /// Starts the capture file at `path` (refused, naming `--pcap`, if it is not a regular
    /// file or cannot be created).
    /// `seed` is the run's master seed, which the data frames' keys derive from.
    pub(crate) fn create(
        scenario: &'s Scenario,
        path: &std::path::Path,
        seed: u64,
    ) -> anyhow::Result<Self> {
        let file = AtomicFile::create(path).context("--pcap")?;
        let writer = Writer::new(file, &[])
            .with_context(|| format!("--pcap: cannot write {}", path.display()))?;
        Ok(PcapSink {
            scenario,
            writer,
            interfaces: vec![[u32::MAX; 2]; scenario.network.links.len()],
            ike: std::collections::BTreeMap::new(),
            seed,
            sealers: HashMap::new(),
            sa_keys: std::collections::BTreeMap::new(),
            unsealed: (0, None),
        })
    }

    /// Ends the capture: the file appears at its path. Returns the key files' texts:
    /// Wireshark's IKEv2 decryption table of the handshake datagrams it sealed
    /// (`ikev2_decryption_table`: one row per IKE cipher used, every tunnel sharing
    /// `protocols::ikev2::SPI_I` and `SPI_R`), the ESP SA table and the key list of the data frames.
    pub(crate) fn finish(self) -> anyhow::Result<KeyFiles> {
        let file = self.writer.finish().context("--pcap")?;
        file.finish(Ok(())).context("--pcap")?;
        let ikev2 = (!self.ike.is_empty()).then(|| {
            self.ike
                .iter()
                .map(|(&t, (k, _))| {
                    let (i, r) = tunnel_spis(t);
                    k.wireshark_row(&i, &r)
                })
                .collect::<String>()
        });
        let esp_sa: String = self
            .sa_keys
            .values()
            .map(|(rows, _)| rows.as_str())
            .collect();
        let keys = (!self.sa_keys.is_empty()).then(|| {
            let mut out = format!(
                "# oransim run keys of scenario \"{}\", seed {}: derived from the seed, as public as \
                 it is, they protect nothing; one security association per flow direction\n",
                self.scenario.name, self.seed
            );
            out.extend(self.sa_keys.values().map(|(_, k)| k.as_str()));
            out
        });
        Ok(KeyFiles {
            ikev2,
            esp_sa: (!esp_sa.is_empty()).then_some(esp_sa),
            keys,
            unsealed: self.unsealed,
        })
    }
}

impl FrameSink for PcapSink<'_> {
    /// Seals with the keys of the frame's flow direction, derived from the run's seed
    /// ([`secret`]); the first frame of a direction makes its sealer and adds its keys to the
    /// key files. A suite no sealer seals leaves that direction's frames unsealed (counted).
    fn seal_frame(&mut self, frame: &DataFrame<'_>, bytes: &mut [u8]) -> std::io::Result<()> {
        let sa = frame.flow.saturating_mul(2) + usize::from(frame.direction == Direction::Reverse);
        if !self.sealers.contains_key(&sa) {
            let sealer = match live::FrameSealer::keyed(
                frame.stack,
                frame.ids,
                &secret(self.seed, frame.flow, frame.direction),
            ) {
                Ok(s) => {
                    let keys = s.keys();
                    let rows =
                        live::frames::esp_sa(frame.stack, frame.ids, keys).unwrap_or_default();
                    let name = &self.scenario.network.flows[frame.flow].name;
                    let dir = match frame.direction {
                        Direction::Forward => "forward",
                        Direction::Reverse => "reverse",
                    };
                    let mut lines = format!("flow \"{name}\" {dir} `{}`:\n", frame.stack);
                    lines.push_str(&live::frames::key_lines(keys));
                    self.sa_keys.insert(sa, (rows, lines));
                    Some(s)
                }
                Err(e) => {
                    self.unsealed.0 += 1;
                    if self.unsealed.1.is_none() {
                        self.unsealed.1 = Some(format!(
                            "flow \"{}\": {e}",
                            self.scenario.network.flows[frame.flow].name
                        ));
                    }
                    None
                }
            };
            self.sealers.insert(sa, sealer);
        }
        let Some(Some(sealer)) = self.sealers.get(&sa) else {
            return Ok(());
        };
        let seq = frame.ids.seq;
        sealer
            .seal(frame.emitted, seq, seq.saturating_sub(1), bytes)
            .map_err(std::io::Error::other)
    }

    /// Gives the datagram its tunnel's SPIs ([`tunnel_spis`]) and seals it with its tunnel's
    /// keys, derived from the run's seed and the tunnel, the IV numbered per direction from 1
    /// (a GCM nonce is never repeated under a key).
    fn seal_ike(
        &mut self,
        tunnel: u32,
        cipher: protocols::ikev2::IkeCipher,
        datagram: &mut protocols::ikev2::Datagram,
    ) -> std::io::Result<()> {
        let (i, r) = tunnel_spis(tunnel);
        datagram.set_spis(i, r);
        if datagram.seal.is_none() {
            return Ok(());
        }
        let seed = self.seed;
        let (keys, numbers) = self.ike.entry(tunnel).or_insert_with(|| {
            let mut secret = [0u8; 12];
            secret[..8].copy_from_slice(&seed.to_be_bytes());
            secret[8..].copy_from_slice(&tunnel.to_be_bytes());
            (live::ike::IkeKeys::derived(cipher, &secret), [0; 2])
        });
        let n = &mut numbers[usize::from(!datagram.from_initiator)];
        *n += 1;
        live::ike::seal(keys, datagram, *n).map_err(std::io::Error::other)
    }

    fn frame(
        &mut self,
        link_direction: u32,
        ethernet: bool,
        time_ps: u64,
        bytes: &[u8],
    ) -> std::io::Result<()> {
        let link = (link_direction / 2) as usize;
        let kind = usize::from(!ethernet);
        let Some(slots) = self.interfaces.get_mut(link) else {
            return Err(std::io::Error::other(format!(
                "a frame on link {link}, which the scenario does not have"
            )));
        };
        if slots[kind] == u32::MAX {
            let net = &self.scenario.network;
            let l = &net.links[link];
            let (a, b) = (&net.nodes[l.a].name, &net.nodes[l.b].name);
            let mut i = Interface::new(
                if ethernet {
                    format!("{a}<->{b}")
                } else {
                    format!("{a}<->{b} (ip)")
                },
                if ethernet {
                    LinkType::Ethernet
                } else {
                    LinkType::RawIp
                },
            );
            i.description = Some(format!("link \"{}\"", l.name));
            slots[kind] = self
                .writer
                .add_interface(&i)
                .map_err(std::io::Error::other)?;
        }
        // Simulated picoseconds to nanoseconds, rounded down: a frame carries the nanosecond
        // its time falls in.
        self.writer
            .packet(slots[kind], time_ps / 1000, bytes, bytes.len())
            .map_err(std::io::Error::other)
    }
}
