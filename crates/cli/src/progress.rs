//! Progress on standard error for `run` and `reproduce` (`--progress auto|always|never`): an
//! indicatif bar, drawn by default only when stderr is a terminal, so pipes, files, captured
//! output and JSON on stdout never see it. A run's bar follows the engine's
//! [`sim_core::Progress`], which a thread here polls; the engine itself never prints.
//! The phases around it (building the scenario, writing the report) show a spinner with the
//! phase's name and its elapsed time ([`phase`]).

use std::io::IsTerminal as _;
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sim_core::Progress;

/// When to show progress on stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum When {
    /// Only when stderr is a terminal.
    #[default]
    Auto,
    /// Always, even into a pipe or a file (the last state stays as a line).
    Always,
    /// Never.
    Never,
}

/// How often the polling thread redraws a run's bar.
const POLL: Duration = Duration::from_millis(100);

/// A progress bar on stderr, or nothing.
pub(crate) struct Bar {
    bar: Option<ProgressBar>,
    /// Cleared when done (a terminal), or left as the last line (`always` into a pipe or file).
    clear: bool,
}

impl Bar {
    /// A bar of `len` steps drawn with indicatif `template`, or nothing when `when` says so.
    pub(crate) fn new(when: When, len: u64, template: &str) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let show = match when {
            When::Auto => terminal,
            When::Always => true,
            When::Never => false,
        };
        let bar = show.then(|| {
            let target = if terminal {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::term_like(Box::new(Stderr))
            };
            let b = ProgressBar::with_draw_target(Some(len), target);
            if let Ok(style) = ProgressStyle::with_template(template) {
                b.set_style(style);
            }
            b
        });
        Bar {
            bar,
            clear: terminal,
        }
    }

    /// Whether anything is drawn.
    pub(crate) fn shown(&self) -> bool {
        self.bar.is_some()
    }

    /// Moves the bar to `pos` with `message` (`{msg}` in the template).
    pub(crate) fn set(&self, pos: u64, message: String) {
        if let Some(b) = &self.bar {
            b.set_position(pos);
            b.set_message(message);
        }
    }

    /// Ends the bar: cleared on a terminal, its last state left as a line elsewhere.
    pub(crate) fn finish(&self) {
        match &self.bar {
            Some(b) if self.clear => b.finish_and_clear(),
            Some(b) => b.finish(),
            None => {}
        }
    }
}

/// How often a phase's spinner turns.
const TICK: Duration = Duration::from_millis(120);

/// Runs `work` while a spinner on stderr (as `when` says) names the phase `what` ("building the
/// scenario", "writing the report") and counts its seconds; cleared on a terminal when done, left
/// as a line elsewhere (`--progress always`).
pub(crate) fn phase<T>(when: When, what: &str, work: impl FnOnce() -> T) -> T {
    let bar = Bar::new(when, 0, "{spinner} {msg} ({elapsed})");
    let Some(b) = &bar.bar else {
        return work();
    };
    b.set_message(what.to_owned());
    b.enable_steady_tick(TICK);
    let out = work();
    bar.finish();
    out
}

/// What a run's bar counts: simulated time against the `[stop] duration`, or source packets
/// against the `[stop] packets` count, over all replications.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RunGoal {
    /// Simulated time, all replications together \[ps\].
    Time(u64),
    /// Source packets, all replications together.
    Packets(u64),
}

impl RunGoal {
    /// The goal of `replications` replications of `net`, or `None` when its stop is neither a
    /// duration nor a packet count.
    pub(crate) fn of(net: &sim_core::Network, replications: u32) -> Option<RunGoal> {
        let r = u64::from(replications);
        match (net.stop.duration, net.stop.packets) {
            (Some(d), _) => Some(RunGoal::Time(d.as_ps().saturating_mul(r))),
            (None, Some(n)) => Some(RunGoal::Packets(n.saturating_mul(r))),
            (None, None) => None,
        }
    }
}

/// Runs `work` while a bar on stderr (as `when` says) follows `progress` towards `goal`.
pub(crate) fn watch_run<T>(
    when: When,
    goal: Option<RunGoal>,
    progress: &Progress,
    work: impl FnOnce() -> T,
) -> T {
    let (len, template) = match goal {
        Some(RunGoal::Time(ps)) => (ps, "simulating {bar:40} {msg} simulated, eta {eta}"),
        Some(RunGoal::Packets(n)) => (
            n,
            "simulating {bar:40} {pos}/{len} source packets, eta {eta}",
        ),
        None => (0, "{spinner} simulating: {msg} simulated ({elapsed})"),
    };
    let bar = Bar::new(when, len, template);
    if !bar.shown() {
        return work();
    }
    let (stop, stopped) = mpsc::channel::<()>();
    let bar = &bar;
    let show = &|bar: &Bar| {
        let ps = progress.simulated_ps();
        match goal {
            Some(RunGoal::Time(total)) => {
                // The last events after the stop (packets in flight) run past it.
                let ps = ps.min(total);
                bar.set(ps, format!("{} of {}", time(ps), time(total)));
            }
            Some(RunGoal::Packets(total)) => bar.set(progress.packets().min(total), String::new()),
            None => bar.set(0, time(ps)),
        }
    };
    let out = std::thread::scope(|s| {
        s.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(POLL) {
                show(bar);
            }
        });
        let out = work();
        let _ = stop.send(());
        out
    });
    show(bar);
    bar.finish();
    out
}

/// A simulated time \[ps\] in words: seconds, milliseconds or microseconds.
fn time(ps: u64) -> String {
    let s = ps as f64 * 1e-12;
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.2} us", s * 1e6)
    }
}

/// Standard error as indicatif's terminal when it is not one (`--progress always` into a pipe
/// or a file): the same escape sequences a terminal gets; writes never fail.
#[derive(Debug)]
struct Stderr;

impl Stderr {
    /// Moves the cursor `n` places (`CSI n A|B|C|D`); nothing for none, since many terminals
    /// read `CSI 0 A` as one.
    fn cursor(&self, n: usize, direction: char) -> std::io::Result<()> {
        if n > 0 {
            crate::stdio::to_stderr(format_args!("\x1b[{n}{direction}"));
        }
        Ok(())
    }
}

impl indicatif::TermLike for Stderr {
    fn width(&self) -> u16 {
        // Wide enough that a bar and its message never wrap.
        160
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'A')
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'B')
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'C')
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'D')
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        crate::stdio::to_stderr(format_args!("{s}\n"));
        Ok(())
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        crate::stdio::to_stderr(format_args!("{s}"));
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.write_str("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::time;

    #[test]
    fn simulated_time_in_words() {
        assert_eq!(time(1_500_000_000_000), "1.50 s");
        assert_eq!(time(20_000_000_000), "20.00 ms");
        assert_eq!(time(3_000_000), "3.00 us");
    }
}
