//! Round trips across formats for every shared net: PNML → PEP → PNML and PEP → PNML → PEP keep
//! the places, transitions, arcs, weights and initial marking (through the library), and
//! `unfold convert` + `unfold info --json` agree on the sizes (through the binary).

use crate::common;

use std::path::Path;

use unfold::formats::{Format, pep, pnml, read_net};
use unfold::model::net::Net;

/// What a round trip must keep: per place its label and initial marking, per transition its
/// label and arcs. Labels are compared with the PEP writer's substitutions applied (`"` → `'`,
/// line breaks → spaces), the only changes PEP's quoted names force.
fn shape(net: &Net) -> Vec<String> {
    let clean = |s: &str| {
        s.replace('"', "'")
            .replace(['\n', '\r'], " ")
            .trim()
            .to_string()
    };
    let mut out: Vec<String> = net
        .places
        .iter()
        .map(|p| format!("place {} {}", clean(&p.label), p.initial))
        .collect();
    for t in &net.transitions {
        let arcs = |list: &[unfold::model::net::Arc]| {
            list.iter()
                .map(|a| format!("{}*{}", a.place, a.weight))
                .collect::<Vec<_>>()
                .join(",")
        };
        out.push(format!(
            "transition {} pre {} post {} read {}",
            clean(&t.label),
            arcs(&t.pre),
            arcs(&t.post),
            arcs(&t.reads)
        ));
    }
    out
}

fn through(net: &Net, via: Format) -> Net {
    let mut bytes = Vec::new();
    let path = Path::new(match via {
        Format::Pnml => "roundtrip.pnml",
        Format::Pep => "roundtrip.ll_net",
        Format::Tsys => unreachable!("a program is no net"),
    });
    match via {
        Format::Pnml => {
            pnml::write(net, &mut bytes).unwrap();
            pnml::parse(&bytes, path).unwrap()
        }
        Format::Pep => {
            pep::write(net, &mut bytes).unwrap();
            pep::parse(&bytes, path).unwrap()
        }
        Format::Tsys => unreachable!("a program is no net"),
    }
}

#[test]
fn every_shared_net_survives_both_round_trips() {
    let root = common::shared_nets();
    let mut checked = 0;
    for file in common::shared_net_files() {
        if file.starts_with("pnml/col/") {
            continue;
        }
        let (net, format) = read_net(&root.join(&file)).unwrap();
        let (other, back) = match format {
            Format::Pnml => (Format::Pep, Format::Pnml),
            Format::Pep => (Format::Pnml, Format::Pep),
            Format::Tsys => unreachable!("read_net reads nets"),
        };
        let again = through(&through(&net, other), back);
        assert_eq!(
            shape(&net),
            shape(&again),
            "{file}: {format:?} -> {other:?} -> {back:?}"
        );
        assert_eq!(net.arc_count(), again.arc_count(), "{file}");
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} nets");
}

#[test]
fn convert_and_info_agree_through_the_binary() {
    let root = common::shared_nets();
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "pnml/Peterson-PT-2.pnml",
        "pep/cont/mutual.ll_net",
        "pnml/Kanban-PT-00005.pnml",
    ] {
        let input = root.join(file);
        let info = |path: &Path| -> serde_json::Value {
            let out = common::unfold()
                .args(["info", "--json", "-"])
                .arg(path)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let original = info(&input);
        let ext = if file.ends_with(".pnml") {
            "ll_net"
        } else {
            "pnml"
        };
        let there = dir.path().join(format!("there.{ext}"));
        common::unfold()
            .arg("convert")
            .arg(&input)
            .arg(&there)
            .assert()
            .success();
        let converted = info(&there);
        for key in [
            "places",
            "transitions",
            "arcs",
            "read_arcs",
            "initial_tokens",
            "max_weight",
        ] {
            assert_eq!(original[key], converted[key], "{file}: {key}");
        }
    }
}
