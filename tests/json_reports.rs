//! Every JSON report says which build and which command made it: `version` (the crate's) and
//! `command_line` (the arguments as given), in every mode.

use crate::common;

use serde_json::Value;

#[test]
fn every_json_report_has_its_version_and_command_line() {
    let runs: &[&[&str]] = &[
        &["nets/ring-4.pnml", "--cutoffs"],
        &["reach", "nets/ring-4.pnml"],
        &["prefix", "nets/pairs-3.ll_net"],
        &["info", "nets/readers-writer.ll_net"],
        &["check", "--brute", "nets/pairs-3.ll_net"],
        &[
            "check",
            "nets/philosophers-5.pnml",
            "--formula",
            "EF deadlock",
        ],
        &["edpor", "nets/programs/fig1.tsys"],
    ];
    for args in runs {
        let out = common::unfold()
            .args(*args)
            .args(["--json", "-", "-q"])
            .output()
            .unwrap();
        let json: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(json["version"], env!("CARGO_PKG_VERSION"), "{args:?}");
        let line: Vec<&str> = json["command_line"]
            .as_array()
            .unwrap_or_else(|| panic!("{args:?}: no command_line"))
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            line.ends_with(&[args, &["--json", "-", "-q"][..]].concat()),
            "{args:?}: {line:?}"
        );
    }
}
