//! Houdini's answer carried from one verification to another of the same kernel (issue 28:
//! the re-verification of a repair's patched source reuses what the repair proved).
//!
//! The repair's verifier ends with the candidates Houdini kept under the repaired barrier
//! assignment; the patched source, compiled again, has the same loops and makes the same
//! candidates in the same order (a barrier adds no loop and no loop-carried value). Its
//! verification then starts Houdini from the candidates kept there instead of from all of
//! them. Houdini still checks every candidate it keeps, so the answer is inductive whatever
//! the seed; it can only be weaker than Houdini's greatest fixpoint, so a verdict other than
//! verified under a seed is not given: the check is made again without it
//! ([`crate::Verifier::check`]).

use crate::encode::Candidate;

/// The candidates Houdini kept for one kernel, matched to another encoding's by loop,
/// position and description with value and block numbers left out (`v27 strided by 16` is
/// `v# strided by 16`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HoudiniSeed {
    /// Per candidate, in the encoding's order: its loop, its description's shape, kept.
    cands: Vec<(u32, String, bool)>,
}

impl HoudiniSeed {
    pub(crate) fn of(candidates: &[Candidate<'_>], kept: &[bool]) -> HoudiniSeed {
        HoudiniSeed { cands: candidates.iter().zip(kept).map(|(c, k)| (c.loop_id as u32, shape(&c.what), *k)).collect() }
    }

    /// The kept set for `candidates`, when they are the seed's candidates.
    pub(crate) fn kept_for(&self, candidates: &[Candidate<'_>]) -> Option<Vec<bool>> {
        if candidates.len() != self.cands.len() {
            return None;
        }
        let same = candidates.iter().zip(&self.cands).all(|(c, (l, s, _))| c.loop_id as u32 == *l && shape(&c.what) == *s);
        same.then(|| self.cands.iter().map(|(_, _, k)| *k).collect())
    }

    /// Leaves out of the seed every candidate for which `keep` (its index and description's
    /// shape) is false.
    pub fn retain(&mut self, mut keep: impl FnMut(usize, &str) -> bool) {
        for (i, (_, shape, kept)) in self.cands.iter_mut().enumerate() {
            *kept = *kept && keep(i, shape);
        }
    }

    /// How many candidates it keeps, of how many.
    pub fn counts(&self) -> (usize, usize) {
        (self.cands.iter().filter(|c| c.2).count(), self.cands.len())
    }
}

/// `what` with the digits that follow `v` or `block` (value and block numbers, which another
/// compilation numbers differently) left out.
pub(crate) fn shape(what: &str) -> String {
    let b = what.as_bytes();
    let mut out = String::with_capacity(what.len());
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let prefix = if b[i] == b'v' {
            1
        } else if what[i..].starts_with("block") {
            5
        } else {
            0
        };
        if word_start && prefix > 0 && b.get(i + prefix).is_some_and(u8::is_ascii_digit) {
            out.push_str(&what[i..i + prefix]);
            out.push('#');
            i += prefix;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            continue;
        }
        let ch = what[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shape;

    #[test]
    fn value_and_block_numbers_are_left_out_of_a_shape() {
        assert_eq!(shape("v28 strided by Value(v24)"), "v# strided by Value(v#)");
        assert_eq!(shape("exit block2 -> block9 taken uniformly"), "exit block# -> block# taken uniformly");
        assert_eq!(shape("no read of C logged"), "no read of C logged");
        assert_eq!(shape("v1102 strided by -18446744073709551584"), "v# strided by -18446744073709551584");
        // A `v` inside a word is not a value.
        assert_eq!(shape("v3 minus initial value uniform"), "v# minus initial value uniform");
    }
}
