//! A stand-in E2AP PDU of a given length (O-RAN.WG3.E2AP, ASN.1 aligned PER, ITU-T X.691) for
//! the payload of a captured E2AP message, so that a dissector reads a well-formed PDU rather
//! than the pattern bytes: an `initiatingMessage` RICindication (procedure code 5, criticality
//! ignore) with one IE, RICindicationMessage (id 26, criticality ignore), an OCTET STRING of
//! zeros whose length makes the PDU `len` bytes.
//!
//! ```text
//! 00            E2AP-PDU: no extension, choice 0 (initiatingMessage), padding
//! 05            procedureCode 5 (id-RICindication)
//! 40            criticality ignore (01), padding
//! L1            open type length (1 byte under 128, else 2: 10xxxxxx xxxxxxxx)
//! 00 00 01      RICindication: no extension, padding; 1 IE (16-bit count)
//! 00 1a 40 L2   IE id 26, criticality ignore, open type length
//! L3 00 ...     RICindicationMessage: OCTET STRING length, L3 zero bytes
//! ```

/// Largest length a one- or two-byte PER length determinant gives (X.691 §11.9.3.7); longer
/// needs fragmentation, which [`ric_indication`] does not write \[bytes\].
const MAX_LEN: usize = 16_383;

/// Appends an unconstrained PER length determinant of `n` (at most [`MAX_LEN`]).
fn length(out: &mut Vec<u8>, n: usize) {
    if n < 128 {
        out.push(n as u8);
    } else {
        out.extend_from_slice(&[0x80 | (n >> 8) as u8, n as u8]);
    }
}

/// Bytes of the determinant of `n` \[bytes\].
fn length_len(n: usize) -> usize {
    if n < 128 { 1 } else { 2 }
}

/// The RICindication PDU of exactly `len` bytes, or None when no OCTET STRING length gives
/// it: under 12 bytes, over 16383, and 132, 140 and 142 (lengths skipped where a length
/// determinant grows from 1 to 2 bytes).
///
/// ```
/// let p = protocols::e2ap::ric_indication(195).unwrap();
/// assert_eq!(p.len(), 195);
/// assert_eq!(&p[..3], &[0x00, 0x05, 0x40]);
/// assert!(protocols::e2ap::ric_indication(5).is_none());
/// ```
pub fn ric_indication(len: usize) -> Option<Vec<u8>> {
    if len > MAX_LEN {
        return None;
    }
    // The largest OCTET STRING first: the PDU's length grows with it.
    (0..len).rev().find_map(|l3| {
        let ie = length_len(l3).checked_add(l3)?;
        let field = 3usize.checked_add(length_len(ie))?.checked_add(ie)?;
        let container = 3usize.checked_add(field)?;
        let total = 3usize
            .checked_add(length_len(container))?
            .checked_add(container)?;
        (total == len).then(|| {
            let mut out = Vec::with_capacity(len);
            out.extend_from_slice(&[0x00, 0x05, 0x40]);
            length(&mut out, container);
            out.extend_from_slice(&[0x00, 0x00, 0x01, 0x00, 0x1a, 0x40]);
            length(&mut out, ie);
            length(&mut out, l3);
            out.resize(len, 0);
            out
        })
    })
}

#[cfg(test)]
mod tests {
    use super::ric_indication;

    /// Every length it writes is exact; the lengths it skips are few and named.
    #[test]
    fn lengths_are_exact() {
        let mut skipped = Vec::new();
        for n in 0..=super::MAX_LEN + 1 {
            match ric_indication(n) {
                Some(p) => assert_eq!(p.len(), n),
                None => skipped.push(n),
            }
        }
        assert_eq!(skipped[..12], (0..12).collect::<Vec<_>>()[..]);
        assert_eq!(skipped[12..], [132, 140, 142, super::MAX_LEN + 1]);
    }
}
