//! The capture file of `oransim run --pcap`: which flows it holds (`--pcap-flow`, refused by
//! name), and the sink that writes [`model::capture`]'s frames into a pcapng stream
//! ([`printer::pcap::Writer`]) on an [`AtomicFile`], one interface per link, described as the
//! link's first frame arrives.

use anyhow::{Context, bail};

use model::Scenario;
use model::capture::FrameSink;
use printer::pcap::{Interface, LinkType, Writer};

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
pub fn flows(scenario: &Scenario, names: &[String]) -> anyhow::Result<Vec<usize>> {
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
pub struct PcapSink<'s> {
    scenario: &'s Scenario,
    writer: Writer<AtomicFile>,
    /// Per link: its interface for Ethernet frames and for IP frames (`u32::MAX`: none yet).
    interfaces: Vec<[u32; 2]>,
    /// The IKE SA keys of each cipher whose datagrams were sealed, in first-use order, with
    /// the datagrams sealed under each direction's key so far (each datagram's IV number).
    ike: Vec<(live::ike::IkeKeys, [u64; 2])>,
}

impl<'s> PcapSink<'s> {
    /// Starts the capture file at `path` (refused, naming `--pcap`, if it is not a regular
    /// file or cannot be created).
    pub fn create(scenario: &'s Scenario, path: &std::path::Path) -> anyhow::Result<Self> {
        let file = AtomicFile::create(path).context("--pcap")?;
        let writer = Writer::new(file, &[])
            .with_context(|| format!("--pcap: cannot write {}", path.display()))?;
        Ok(PcapSink {
            scenario,
            writer,
            interfaces: vec![[u32::MAX; 2]; scenario.network.links.len()],
            ike: Vec::new(),
        })
    }

    /// Ends the capture: the file appears at its path. Returns Wireshark's IKEv2 decryption
    /// table of the handshake datagrams it sealed (`ikev2_decryption_table`: one row per IKE
    /// cipher used, every tunnel sharing `protocols::ikev2::emit`'s SPIs), if there were any.
    pub fn finish(self) -> anyhow::Result<Option<String>> {
        let file = self.writer.finish().context("--pcap")?;
        file.finish(Ok(())).context("--pcap")?;
        Ok((!self.ike.is_empty()).then(|| {
            self.ike
                .iter()
                .map(|(k, _)| k.wireshark_table())
                .collect::<String>()
        }))
    }
}

impl FrameSink for PcapSink<'_> {
    /// Seals with `live::ike`'s fixed test keys of the cipher, the IV numbered per direction
    /// from 1 over the whole capture (a GCM nonce is never repeated under a key).
    fn seal_ike(
        &mut self,
        cipher: protocols::ikev2::IkeCipher,
        datagram: &mut protocols::ikev2::emit::Datagram,
    ) -> std::io::Result<()> {
        if datagram.seal.is_none() {
            return Ok(());
        }
        let at = match self.ike.iter().position(|(k, _)| k.cipher == cipher) {
            Some(i) => i,
            None => {
                self.ike.push((live::ike::IkeKeys::test(cipher), [0; 2]));
                self.ike.len() - 1
            }
        };
        let (keys, numbers) = &mut self.ike[at];
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
