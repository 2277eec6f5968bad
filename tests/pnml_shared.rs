//! Every PNML net of the shared collection: the P/T ones parse (with the sizes their NUPN block
//! declares, where ORACLES.tsv records them) and survive a write → parse round trip; the
//! coloured ones are refused with a message naming the net type.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use unfold::formats::pnml;
use unfold::model::net::Net;

/// The shared nets; a missing directory is a failure, not a skip.
fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.is_dir(),
        "shared nets not found at {} (the PNML tests need them)",
        dir.display()
    );
    dir
}

/// The `.pnml` files directly in `dir`, sorted; at least one.
fn pnml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pnml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .pnml file in {}", dir.display());
    files
}

fn read(path: &Path) -> Net {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    pnml::parse(&bytes, path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_pt_net_parses() {
    for path in pnml_files(&shared().join("pnml")) {
        let net = read(&path);
        assert!(
            !net.places.is_empty() && !net.transitions.is_empty(),
            "{}: {net}",
            path.display()
        );
        assert!(!net.name.is_empty(), "{}: no net name", path.display());
    }
}

#[test]
fn coloured_nets_are_unfolded() {
    // tests/coloured.rs checks the unfoldings against the P/T twins and the contest.
    let mut seen = 0;
    for path in pnml_files(&shared().join("pnml/col")) {
        let bytes = std::fs::read(&path).unwrap();
        let net = pnml::parse(&bytes, &path).unwrap_or_else(|e| panic!("{e}"));
        assert!(net.folding.is_some(), "{}", path.display());
        assert!(!net.places.is_empty(), "{}", path.display());
        seen += 1;
    }
    assert!(seen >= 2, "only {seen} coloured nets");
}

/// `nupn.*` rows of ORACLES.tsv for PNML files: file → property → value.
fn nupn_oracles(shared: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let tsv = std::fs::read_to_string(shared.join("ORACLES.tsv")).unwrap();
    let mut rows: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in tsv.lines().skip(1) {
        let mut cols = line.split('\t');
        let (Some(file), Some(prop), Some(value)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        if file.ends_with(".pnml") && prop.starts_with("nupn.") {
            rows.entry(file.to_string())
                .or_default()
                .insert(prop.to_string(), value.to_string());
        }
    }
    rows
}

#[test]
fn declared_nupn_sizes_match() {
    let shared = shared();
    let oracles = nupn_oracles(&shared);
    assert!(!oracles.is_empty(), "no nupn.* rows in ORACLES.tsv");
    let mut checked = 0;
    for (file, props) in &oracles {
        let net = read(&shared.join(file));
        let actual = [
            ("nupn.places", net.places.len()),
            ("nupn.transitions", net.transitions.len()),
            ("nupn.arcs", net.arc_count()),
        ];
        for (prop, got) in actual {
            if let Some(want) = props.get(prop) {
                assert_eq!(want.parse::<usize>().ok(), Some(got), "{file} {prop}");
                checked += 1;
            }
        }
        let nupn = net
            .nupn
            .as_ref()
            .unwrap_or_else(|| panic!("{file}: no NUPN"));
        if let Some(safe) = props.get("nupn.safe") {
            assert_eq!(
                nupn.safe.map(|s| s.to_string()).as_deref(),
                Some(safe.as_str()),
                "{file} nupn.safe"
            );
        }
        // The block itself was read too.
        assert_eq!(nupn.places, Some(net.places.len() as u64), "{file}");
        assert_eq!(
            nupn.transitions,
            Some(net.transitions.len() as u64),
            "{file}"
        );
    }
    assert!(checked >= 3, "only {checked} sizes checked");
}

#[test]
fn write_then_parse_gives_the_same_net() {
    for path in pnml_files(&shared().join("pnml")) {
        let net = read(&path);
        let mut out = Vec::new();
        pnml::write(&net, &mut out).unwrap();
        let back = pnml::parse(&out, Path::new("written.pnml"))
            .unwrap_or_else(|e| panic!("{}: written file refused: {e}", path.display()));
        assert_eq!(back.name, net.name, "{}", path.display());
        assert_eq!(back.places, net.places, "{}", path.display());
        assert_eq!(back.transitions, net.transitions, "{}", path.display());
        assert_eq!(back.arc_count(), net.arc_count(), "{}", path.display());
        assert_eq!(
            back.nupn.as_ref().map(|n| n.safe),
            net.nupn.as_ref().map(|n| n.safe.or(Some(false))),
            "{}",
            path.display()
        );
    }
}
