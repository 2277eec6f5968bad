//! `unfold prefix --mci`: the file is read back by a reader written here from the format's
//! description (not the writer's code), and checked against ORACLES.tsv (events, conditions,
//! cutoffs), the net (every event's preset and postset are its transition's), the causal
//! numbering the checkers of Mole/Punf rely on, and the meaning of cutoffs (a cutoff's local
//! configuration reaches the marking of its corresponding event's).

mod common;

use std::collections::BTreeSet;

use common::{oracles, shared_nets, unfold};
use unfold::formats::read_net;

/// A parsed `.mci` file (1-based numbering; index 0 unused).
#[derive(Debug, Default)]
struct Mci {
    ev_tr: Vec<u32>,
    co_pl: Vec<u32>,
    co_pre: Vec<u32>,
    co_post: Vec<Vec<u32>>,
    cutoffs: Vec<(u32, u32)>,
    places: Vec<String>,
    transitions: Vec<String>,
    longest: u32,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn int(&mut self) -> u32 {
        let b = self
            .bytes
            .get(self.pos..self.pos + 4)
            .unwrap_or_else(|| panic!("truncated .mci at byte {}", self.pos));
        self.pos += 4;
        u32::from_le_bytes(b.try_into().unwrap())
    }

    /// Reads numbers up to a terminating 0.
    fn list(&mut self) -> Vec<u32> {
        std::iter::from_fn(|| Some(self.int()).filter(|&v| v != 0)).collect()
    }

    fn name(&mut self) -> String {
        let len = self.bytes[self.pos..]
            .iter()
            .position(|&b| b == 0)
            .expect("unterminated name");
        let s = String::from_utf8(self.bytes[self.pos..self.pos + len].to_vec()).unwrap();
        self.pos += len + 1;
        s
    }
}

fn parse(bytes: &[u8]) -> Mci {
    let mut c = Cursor { bytes, pos: 0 };
    let (nco, nev) = (c.int() as usize, c.int() as usize);
    let mut m = Mci {
        ev_tr: vec![0],
        co_pl: vec![0],
        co_pre: vec![0],
        co_post: vec![Vec::new()],
        ..Mci::default()
    };
    for _ in 0..nev {
        m.ev_tr.push(c.int());
    }
    for _ in 0..nco {
        m.co_pl.push(c.int());
        m.co_pre.push(c.int());
        m.co_post.push(c.list());
    }
    loop {
        let e = c.int();
        if e == 0 {
            break;
        }
        m.cutoffs.push((e, c.int()));
    }
    assert!(c.list().is_empty(), "unexpected data after the cutoffs");
    let (npl, ntr) = (c.int(), c.int());
    m.longest = c.int();
    m.places = (0..npl).map(|_| c.name()).collect();
    assert_eq!(c.name(), "", "place names not closed by an empty name");
    m.transitions = (0..ntr).map(|_| c.name()).collect();
    assert_eq!(c.name(), "", "transition names not closed by an empty name");
    assert_eq!(c.pos, bytes.len(), "trailing bytes");
    m
}

/// The places marked after the events of `config` (a set of event numbers).
fn marking(m: &Mci, config: &BTreeSet<u32>) -> Vec<u32> {
    let mut places: Vec<u32> = (1..m.co_pl.len())
        .filter(|&c| {
            (m.co_pre[c] == 0 || config.contains(&m.co_pre[c]))
                && !m.co_post[c].iter().any(|e| config.contains(e))
        })
        .map(|c| m.co_pl[c])
        .collect();
    places.sort_unstable();
    places
}

fn local_configuration(m: &Mci, preset: &[Vec<u32>], e: u32) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            stack.extend(
                preset[x as usize]
                    .iter()
                    .map(|&c| m.co_pre[c as usize])
                    .filter(|&p| p != 0),
            );
        }
    }
    seen
}

fn check(file: &str) {
    let path = shared_nets().join(file);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prefix.mci");
    unfold()
        .args(["prefix", "-q", "--mci"])
        .arg(&out)
        .arg(&path)
        .assert()
        .code(0);
    let m = parse(&std::fs::read(&out).unwrap());
    let nev = m.ev_tr.len() - 1;
    let nco = m.co_pl.len() - 1;

    // Sizes: the published ones.
    let props = &oracles()[file];
    let want = |k: &str| props[k].parse::<usize>().unwrap();
    assert_eq!(nev, want("prefix.events"), "{file}: events");
    assert_eq!(nco, want("prefix.conditions"), "{file}: conditions");
    assert_eq!(m.cutoffs.len(), want("prefix.cutoffs"), "{file}: cutoffs");

    // Names and numbering of the net, in file order.
    let net = read_net(&path).unwrap().0;
    let labels: Vec<&str> = net.places.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(m.places, labels, "{file}: place names");
    let labels: Vec<&str> = net.transitions.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(m.transitions, labels, "{file}: transition names");
    let longest = m.places.iter().chain(&m.transitions).map(|s| s.len()).max();
    assert_eq!(Some(m.longest as usize), longest, "{file}: longest name");

    // Presets and postsets are those of the transitions; numbering is causal.
    let mut preset = vec![Vec::new(); nev + 1];
    let mut postset = vec![Vec::new(); nev + 1];
    for c in 1..=nco {
        let pre = m.co_pre[c];
        assert!(pre as usize <= nev && (1..=net.places.len() as u32).contains(&m.co_pl[c]));
        if pre != 0 {
            postset[pre as usize].push(m.co_pl[c] - 1);
        }
        for &e in &m.co_post[c] {
            assert!(
                pre < e,
                "{file}: condition {c} made by event {pre} is consumed by the earlier {e}"
            );
            preset[e as usize].push(c as u32);
        }
    }
    for e in 1..=nev {
        let t = &net.transitions[m.ev_tr[e] as usize - 1];
        let mut places: Vec<u32> = preset[e].iter().map(|&c| m.co_pl[c as usize] - 1).collect();
        places.sort_unstable();
        let want: Vec<u32> = t.pre.iter().map(|a| a.place).collect();
        assert_eq!(places, want, "{file}: preset of event {e}");
        postset[e].sort_unstable();
        let want: Vec<u32> = t.post.iter().map(|a| a.place).collect();
        assert_eq!(postset[e], want, "{file}: postset of event {e}");
    }

    // Cutoffs: nothing consumes what they produce, and they reach their correspondent's
    // marking (⊥: the initial marking).
    let cut: BTreeSet<u32> = m.cutoffs.iter().map(|c| c.0).collect();
    for c in 1..=nco {
        if cut.contains(&m.co_pre[c]) {
            assert!(m.co_post[c].is_empty(), "{file}: a cutoff was extended");
        }
    }
    for &(e, corr) in &m.cutoffs {
        assert!(
            corr < e && !cut.contains(&corr),
            "{file}: cutoff {e} has correspondent {corr}"
        );
        let mine = marking(&m, &local_configuration(&m, &preset, e));
        let theirs = if corr == 0 {
            marking(&m, &BTreeSet::new())
        } else {
            marking(&m, &local_configuration(&m, &preset, corr))
        };
        assert_eq!(mine, theirs, "{file}: cutoff {e} and correspondent {corr}");
    }
}

#[test]
fn mci_of_small_nets() {
    for file in [
        "pep/do_od.ll_net",
        "pep/mutual.ll_net",
        "pep/peterson.ll_net",
        "pep/sdl_arq.ll_net",
        "pep/byzagr4_0b.ll_net",
    ] {
        check(file);
    }
}

#[test]
fn mci_of_larger_nets() {
    for file in [
        "pep/elevator_2.ll_net",
        "pep/key_2.ll_net",
        "pep/knuth_2.ll_net",
    ] {
        check(file);
    }
}

#[test]
fn mci_unwritable_path_is_an_error() {
    let out = unfold()
        .args(["prefix", "-q", "--mci", "/nonexistent-dir/x.mci"])
        .arg(shared_nets().join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent-dir/x.mci"), "{err}");
}
