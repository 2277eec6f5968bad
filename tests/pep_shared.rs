//! Every PEP net of the shared collection parses, and survives a write → parse round trip.

use std::path::{Path, PathBuf};

use unfold::formats::pep;
use unfold::model::net::Net;

/// The shared nets; a missing directory is a failure, not a skip.
fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.is_dir(),
        "shared nets not found at {} (the PEP tests need them)",
        dir.display()
    );
    dir
}

/// The `.ll_net` files directly in `dir`, sorted.
fn ll_nets(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll_net"))
        .collect();
    files.sort();
    files
}

fn all_files() -> Vec<PathBuf> {
    let pep = shared().join("pep");
    let mut files = ll_nets(&pep);
    let cont = ll_nets(&pep.join("cont"));
    assert!(
        !cont.is_empty(),
        "no nets in {}",
        pep.join("cont").display()
    );
    files.extend(cont);
    assert!(files.len() > 8, "too few PEP nets found: {files:?}");
    files
}

fn read(path: &Path) -> Net {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    pep::parse(&bytes, path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_shared_net_parses() {
    for path in all_files() {
        let net = read(&path);
        assert!(
            !net.places.is_empty() && !net.transitions.is_empty(),
            "{}: {net}",
            path.display()
        );
        assert_eq!(
            Some(net.name.as_str()),
            path.file_stem().and_then(|s| s.to_str())
        );
    }
}

#[test]
fn nets_with_read_arcs_have_them() {
    let pep = shared().join("pep");
    for path in ll_nets(&pep.join("cont")) {
        assert!(read(&path).read_arc_count() > 0, "{}", path.display());
    }
    for path in ll_nets(&pep) {
        assert_eq!(read(&path).read_arc_count(), 0, "{}", path.display());
    }
}

#[test]
fn write_then_parse_is_identity() {
    for path in all_files() {
        let net = read(&path);
        let mut out = Vec::new();
        pep::write(&net, &mut out).unwrap();
        let again = pep::parse(&out, &path).unwrap_or_else(|e| panic!("rewritten: {e}"));
        let what = path.display();
        assert_eq!(net.name, again.name, "{what}");
        assert_eq!(net.places.len(), again.places.len(), "{what}");
        for (a, b) in net.places.iter().zip(&again.places) {
            assert_eq!((&a.label, a.initial), (&b.label, b.initial), "{what}");
            // The writer numbers places 1..n in model order.
        }
        assert_eq!(net.transitions.len(), again.transitions.len(), "{what}");
        for (i, (a, b)) in net.transitions.iter().zip(&again.transitions).enumerate() {
            assert_eq!(a.label, b.label, "{what}: transition {i}");
            assert_eq!(a.pre, b.pre, "{what}: preset of {}", a.label);
            assert_eq!(a.post, b.post, "{what}: postset of {}", a.label);
            assert_eq!(a.reads, b.reads, "{what}: read arcs of {}", a.label);
            assert_eq!(b.id, format!("t{}", i + 1), "{what}");
        }
        // Writing the rewritten net again gives the same text: the numbering is stable.
        let mut twice = Vec::new();
        pep::write(&again, &mut twice).unwrap();
        assert_eq!(out, twice, "{what}");
    }
}

#[test]
fn contextual_mutual_matches_plain_mutual() {
    let pep = shared().join("pep");
    let plain = read(&pep.join("mutual.ll_net"));
    let cont = read(&pep.join("cont/mutual.ll_net"));
    assert_eq!(plain.places.len(), cont.places.len());
    assert_eq!(plain.transitions.len(), cont.transitions.len());
    // The contextual version turns pairs of consume/produce arcs into read arcs.
    assert_eq!(
        plain.arc_count(),
        cont.arc_count() + cont.read_arc_count(),
        "{plain} vs {cont}"
    );
}

#[test]
fn explicit_numbers_become_ids() {
    let net = read(&shared().join("pep/mutual.ll_net"));
    // mutual.ll_net numbers its places from 2 and its transitions from 3.
    assert_eq!(net.places[0].id, "p2");
    assert_eq!(net.places[0].label, "P2");
    assert_eq!(net.transitions[0].id, "t3");
    assert!(net.places.iter().any(|p| p.id == "p15" && p.initial == 1));
}
