//! `convert` keeps the NUPN block PNML → PNML: the units (root, places, subunits) and the
//! `safe` attribute read back from the written file are those of the original, on contest
//! models that have one.

use crate::common;

use unfold::model::net::Net;

fn read(path: &std::path::Path) -> Net {
    unfold::formats::read_net(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .0
}

#[test]
fn convert_keeps_the_nupn_units_and_safe() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["AutoFlight-PT-01a.pnml", "CircadianClock-PT-000001.pnml"] {
        let input = common::shared_nets().join("pnml").join(name);
        let output = dir.path().join(name);
        common::unfold()
            .arg("convert")
            .arg(&input)
            .arg(&output)
            .assert()
            .code(0);
        let (before, after) = (read(&input), read(&output));
        let (b, a) = (before.nupn.unwrap(), after.nupn.unwrap());
        assert!(b.unit_tree.len() > 1, "{name}: a NUPN with units");
        assert_eq!(a.unit_tree, b.unit_tree, "{name}");
        assert_eq!(a.root, b.root, "{name}");
        assert_eq!(a.safe, b.safe, "{name}");
        assert_eq!(a.units, Some(b.unit_tree.len() as u64), "{name}");
        assert_eq!(after.places, before.places, "{name}");
    }
}
