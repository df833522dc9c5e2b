//! Running points on several threads, results handed back in the calling thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work` on each of `items` on `jobs` threads (`jobs <= 1`: in the calling thread) and
/// hands the results to `on_batch` in the calling thread, in batches of whatever finished since
/// the last call (completion order, not item order). When `on_batch` fails, no new item starts
/// and the error is returned once the running ones finish.
pub fn run_parallel<T, E, W, B>(
    items: &[u64],
    jobs: usize,
    work: W,
    mut on_batch: B,
) -> Result<(), E>
where
    T: Send,
    W: Fn(u64) -> T + Sync,
    B: FnMut(Vec<T>) -> Result<(), E>,
{
    if jobs <= 1 || items.len() <= 1 {
        for &i in items {
            on_batch(vec![work(i)])?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::sync_channel::<T>(jobs * 64);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(items.len()) {
            let tx = tx.clone();
            let (next, stop, work) = (&next, &stop, &work);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = items.get(k) else { break };
                    if tx.send(work(i)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut result = Ok(());
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            if result.is_ok()
                && let Err(e) = on_batch(batch)
            {
                stop.store(true, Ordering::Relaxed);
                result = Err(e);
            }
        }
        result
    })
}
