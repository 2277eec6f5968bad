//! The default job through the real binary: `unfold FILE [--cutoffs] [--dot OUT]`.

use crate::common;

use std::path::Path;
use std::process::Command as Std;

use common::unfold;
use serde_json::Value;
use unfold::formats::read_net;
use unfold::model::net::Net;

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).expect("one JSON object on standard output")
}

fn nets_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("nets")
}

#[test]
fn the_one_line_use_works_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("out.dot");
    let out = unfold()
        .arg(nets_dir().join("philosophers-5.pnml"))
        .args(["--cutoffs", "--dot"])
        .arg(&dot)
        .output()
        .unwrap();
    // The philosophers deadlock when all take their left fork: exit 1, with a witness.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("deadlock witness: takeLeft_"), "{text}");
    let dot_text = std::fs::read_to_string(&dot).unwrap();
    assert!(dot_text.starts_with("digraph"));
    let svg = Std::new("dot")
        .args(["-Tsvg", "-o"])
        .arg(dir.path().join("out.svg"))
        .arg(&dot)
        .output()
        .expect("GraphViz `dot` is installed (CI installs graphviz)");
    assert!(svg.status.success(), "{svg:?}");
    assert!(
        svg.stderr.is_empty(),
        "dot warnings: {}",
        String::from_utf8_lossy(&svg.stderr)
    );
}

#[test]
fn a_drawing_too_large_is_refused_after_the_statistics() {
    // The refusal keeps the run's answer: the philosophers deadlock, so the exit code is 1
    // (issue 39.4), and the message offers the limit that draws it.
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("out.dot");
    let out = unfold()
        .arg(nets_dir().join("philosophers-5.pnml"))
        .args(["--cutoffs", "--dot-limit", "3", "--dot"])
        .arg(&dot)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("maximal configurations"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("more than --dot-limit 3"), "{err}");
    let events: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("events"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        err.contains(&format!("--dot-limit {events} draws it")),
        "{err}"
    );
    assert!(!dot.exists(), "no drawing written");
}

#[test]
fn dot_to_standard_output() {
    // `--dot -`: the drawing alone on standard output (the same as `--dot FILE` writes), the
    // report on standard error, no file named `-`.
    let dir = tempfile::tempdir().unwrap();
    let net = nets_dir().join("philosophers-5.pnml");
    let file = dir.path().join("out.dot");
    unfold()
        .arg(&net)
        .args(["--cutoffs", "--no-fail", "--dot"])
        .arg(&file)
        .assert()
        .success();
    let out = unfold()
        .current_dir(dir.path())
        .arg(&net)
        .args(["--cutoffs", "--no-fail", "--dot", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, std::fs::read(&file).unwrap());
    assert!(String::from_utf8_lossy(&out.stderr).contains("maximal configurations"));
    assert!(!dir.path().join("-").exists());
    // Two outputs cannot share standard output.
    let out = unfold()
        .arg(&net)
        .args(["--cutoffs", "--dot", "-", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn json_has_the_stable_fields() {
    let out = unfold()
        .arg(nets_dir().join("pairs-3.ll_net"))
        .args(["--json", "-", "--no-fail"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = json_of(&out.stdout);
    for key in [
        "input",
        "mode",
        "complete",
        "time_s",
        "explore_time_s",
        "peak_bytes",
        "maximal_configurations",
        "events",
        "cutoffs",
        "blocked",
        "deadlocks",
        "peak_u",
    ] {
        assert!(j.get(key).is_some(), "missing {key} in {j}");
    }
    assert_eq!(j["maximal_configurations"], 8);
    assert_eq!(j["events"], 6);
    assert_eq!(j["deadlocks"], 8);
    assert_eq!(j["complete"], true);
    // The exploration is part of the whole run.
    let (explore, whole) = (j["explore_time_s"].as_f64(), j["time_s"].as_f64());
    assert!(
        explore.is_some_and(|x| x >= 0.0 && x <= whole.unwrap()),
        "{j}"
    );
}

#[test]
fn brute_force_check_agrees_with_the_dpor() {
    for net in ["pairs-3.ll_net", "producer-consumer.pnml"] {
        let path = nets_dir().join(net);
        let run = |args: &[&str]| {
            let out = unfold()
                .args(args)
                .arg(&path)
                .args(["--json", "-", "--no-fail", "--max-depth", "12"])
                .output()
                .unwrap();
            json_of(&out.stdout)
        };
        let dpor = run(&["run"]);
        let brute = run(&["check", "--brute"]);
        if brute["complete"] == true {
            assert_eq!(
                dpor["maximal_configurations"],
                brute["maximal_configurations"]
            );
            assert_eq!(dpor["events"], brute["events"]);
            assert_eq!(dpor["deadlocks"], brute["deadlocks"]);
        } else {
            // A cyclic net: both stop at the depth bound, incomplete, exit 3.
            assert_eq!(dpor["complete"], false, "{net}");
        }
    }
}

#[test]
fn max_depth_stops_a_cyclic_system_cleanly() {
    let out = unfold()
        .arg(nets_dir().join("ring-4.pnml"))
        .args(["--max-depth", "30", "--json", "-", "--timeout", "20s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let j = json_of(&out.stdout);
    assert_eq!(j["complete"], false);
}

/// `unfold NET ARGS...` on a net of `nets/`.
fn run_on(net: &str, args: &[&str]) -> std::process::Output {
    unfold()
        .arg(nets_dir().join(net))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn max_events_stops_at_that_many_events_the_same_way_each_time() {
    let run = || {
        let out = run_on(
            "ring-4.pnml",
            &["--max-events", "40", "--json", "-", "--timeout", "20s"],
        );
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        json_of(&out.stdout)
    };
    let (a, b) = (run(), run());
    assert_eq!(a["stopped"], "event_limit");
    assert_eq!(a["complete"], false);
    assert_eq!(a["events"], 40);
    for field in ["events", "maximal_configurations", "max_configuration_size"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    let human = run_on("ring-4.pnml", &["--max-events", "40", "--timeout", "20s"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("stopped: event limit reached"), "{text}");
    // A limit below the number of minimal events stops among them.
    let j = json_of(&run_on("philosophers-5.pnml", &["--max-events", "2", "--json", "-"]).stdout);
    assert_eq!(
        (j["events"].as_u64(), j["stopped"].as_str()),
        (Some(2), Some("event_limit"))
    );
    // A run that needs fewer events is not cut.
    let j = json_of(&run_on("pairs-3.ll_net", &["--max-events", "1000", "--json", "-"]).stdout);
    assert_eq!(j["complete"], true, "{j}");
    assert_eq!(j["stopped"], Value::Null);
}

/// A run stopped by a limit still reports `|U|`: on Dekker-PT-010 each step builds a hundred
/// events or more, and sampling every few thousand steps reported a peak of 0 for the first
/// 8 000 events. Stopped before its first backtrack, nothing has left `U`: the peak is every
/// event built.
#[test]
fn peak_u_is_sampled_before_a_limit_stops_the_run() {
    let net = common::shared_nets().join("pnml/Dekker-PT-010.pnml");
    let out = unfold()
        .arg(&net)
        .args(["--max-events", "8000", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let j = json_of(&out.stdout);
    assert_eq!(j["stopped"], "event_limit");
    let (u, events) = (j["peak_u"].as_u64().unwrap(), j["events"].as_u64().unwrap());
    assert_eq!(j["maximal_configurations"], 0);
    assert_eq!(u, events, "peak |U| {u} of {events} events");
}

/// Packed markings (the default) and plain ones give the same answers; packed states are
/// shorter where the nets have one-token components.
#[test]
fn markings_change_the_states_not_the_answers() {
    let shared = common::shared_nets();
    let mut shorter = 0;
    for (net, cutoffs) in [
        ("pep/elevator_2.ll_net", true),
        ("pep/key_2.ll_net", true),
        ("pep/dijkstra_2.ll_net", true),
        ("pnml/Dekker-PT-010.pnml", true),
        ("pep/byzagr4_2a.ll_net", false),
    ] {
        let run = |markings: &str| {
            let mut cmd = unfold();
            cmd.arg(shared.join(net))
                .args(["--markings", markings, "--json", "-"]);
            if cutoffs {
                cmd.arg("--cutoffs");
            }
            let out = cmd.output().unwrap();
            assert!(matches!(out.status.code(), Some(0 | 1)), "{net}: {out:?}");
            json_of(&out.stdout)
        };
        let (packed, plain) = (run("packed"), run("plain"));
        for field in [
            "complete",
            "maximal_configurations",
            "events",
            "cutoffs",
            "deadlocks",
            "blocked",
        ] {
            assert_eq!(packed[field], plain[field], "{net}: {field}");
        }
        let words = |j: &Value| j["state_words"].as_u64().unwrap();
        assert!(words(&packed) <= words(&plain), "{net}");
        shorter += usize::from(words(&packed) < words(&plain));
    }
    assert!(shorter >= 3, "{shorter} nets with shorter states");
}

#[test]
fn timeout_stops_with_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("pairs.ll_net");
    let gen_net = Std::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/gen_net.py"))
        .args(["pairs", "40", "--format", "pep", "-o"])
        .arg(&net)
        .status()
        .unwrap();
    assert!(gen_net.success());
    let start = std::time::Instant::now();
    let out = unfold()
        .arg(&net)
        .args(["--timeout", "1s", "--json", "-", "--no-fail"])
        .output()
        .unwrap();
    assert!(start.elapsed().as_secs_f64() < 5.0);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let j = json_of(&out.stdout);
    assert_eq!(j["complete"], false);
    assert_eq!(j["stopped"], "timeout");
    assert!(j["maximal_configurations"].as_u64().unwrap() > 0);
}

/// DOT snapshots of two small hand-made examples: the picture is stable text.
#[test]
fn dot_snapshots() {
    for (net, args) in [
        ("pairs-3.ll_net", vec![]),
        ("readers-writer.ll_net", vec!["--cutoffs"]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let dot = dir.path().join("out.dot");
        unfold()
            .arg(nets_dir().join(net))
            .args(&args)
            .args(["--no-fail", "-q", "--dot"])
            .arg(&dot)
            .assert()
            .success();
        let text = std::fs::read_to_string(&dot).unwrap();
        insta::assert_snapshot!(net, text);
    }
}

/// Whether the net's graph (places and transitions) has a cycle.
fn has_cycle(net: &Net) -> bool {
    // Transition graph: t -> u when t produces on a place u consumes from.
    let (_, consumers) = net.place_neighbours();
    let succ: Vec<Vec<u32>> = net
        .transitions
        .iter()
        .map(|t| {
            t.post
                .iter()
                .flat_map(|a| consumers[a.place as usize].iter().copied())
                .collect()
        })
        .collect();
    let mut colour = vec![0u8; succ.len()];
    fn visit(v: usize, succ: &[Vec<u32>], colour: &mut [u8]) -> bool {
        colour[v] = 1;
        for &w in &succ[v] {
            let w = w as usize;
            if colour[w] == 1 || (colour[w] == 0 && visit(w, succ, colour)) {
                return true;
            }
        }
        colour[v] = 2;
        false
    }
    (0..succ.len()).any(|v| colour[v] == 0 && visit(v, &succ, &mut colour))
}

/// Without cutoffs: every acyclic net runs to completion; cyclic ones either finish (their
/// runs may still be finite) or stop cleanly at the depth bound or the time limit, incomplete,
/// exit 3.
/// Where `check --count` counts the maximal traces, the DPOR finds exactly that many.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn shared_nets_complete_or_stop_cleanly() {
    let root = common::shared_nets();
    let mut acyclic = 0;
    let mut compared = 0;
    for file in common::shared_net_files() {
        if file.starts_with("pnml/col/") {
            continue;
        }
        let path = root.join(&file);
        let (net, _) = read_net(&path).unwrap();
        let cyclic = has_cycle(&net);
        // Acyclic nets must finish: they get time (HouseConstruction-PT-00002 has 2 263 040
        // maximal configurations and takes minutes); cyclic ones are cut at 3 s.
        let timeout = if cyclic { "3s" } else { "900s" };
        let out = unfold()
            .arg(&path)
            .args([
                "--max-depth",
                "200",
                "--timeout",
                timeout,
                "--json",
                "-",
                "-q",
                "--no-fail",
            ])
            .output()
            .unwrap();
        let j = json_of(&out.stdout);
        // The independent count of maximal traces (acyclic state spaces only).
        let counted = unfold()
            .arg("check")
            .arg("--count")
            .arg(&path)
            .args(["--timeout", "3s", "--json", "-", "-q"])
            .output()
            .unwrap();
        if counted.status.code() == Some(0) && j["complete"] == true {
            let c = json_of(&counted.stdout);
            assert_eq!(
                j["maximal_configurations"], c["maximal_configurations"],
                "{file}: maximal configurations against the count of traces"
            );
            compared += 1;
        }
        if cyclic {
            // A cyclic net may still have only finite runs; otherwise it stops cleanly.
            // (`--no-fail`: a deadlock found does not hide an incomplete run behind exit 1.)
            match out.status.code() {
                Some(3) => assert_eq!(j["complete"], false, "{file}"),
                Some(0) => assert_eq!(j["complete"], true, "{file}"),
                other => panic!("{file}: exit {other:?}: {out:?}"),
            }
        } else {
            acyclic += 1;
            assert_eq!(j["complete"], true, "{file}: acyclic net not finished");
            assert_eq!(out.status.code(), Some(0), "{file}");
        }
    }
    println!("{acyclic} acyclic shared nets; {compared} compared with the count of traces");
    assert!(acyclic >= 5, "only {acyclic} acyclic nets");
    assert!(
        compared >= 10,
        "only {compared} nets compared with the count"
    );
}

/// `.tsys` programs run through the same default job (handlers treated naively).
#[test]
fn programs_run_through_the_default_job() {
    let out = unfold()
        .arg(nets_dir().join("programs/fig1.tsys"))
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let j = json_of(&out.stdout);
    // Fig. 1 of the Event-DPOR paper: 4 Mazurkiewicz traces; a finished program is no deadlock.
    assert_eq!(j["maximal_configurations"], 4);
    assert_eq!(j["deadlocks"], 0);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsys");
    std::fs::write(&bad, "var x;\nthread t { x = q; }\n").unwrap();
    let out = unfold().arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.tsys:2:"), "{err}");
}

/// `--dot-conditions` on acyclic safe nets without self-loops: the DPOR visits the whole
/// unfolding, so its occurrence-net view must have the conditions and events of the complete
/// prefix that `unfold prefix` builds (another code path); and GraphViz renders it cleanly.
#[test]
fn dot_conditions_match_the_prefix_on_acyclic_nets() {
    let dir = tempfile::tempdir().unwrap();
    let generator = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/gen_net.py");
    for (family, n) in [("pairs", 3), ("conflict", 4), ("chain", 5)] {
        let net = dir.path().join(format!("{family}-{n}.ll_net"));
        let made = Std::new("python3")
            .arg(&generator)
            .args([family, &n.to_string(), "--format", "pep", "-o"])
            .arg(&net)
            .status()
            .unwrap();
        assert!(made.success());
        let prefix = unfold()
            .arg("prefix")
            .arg(&net)
            .args(["--json", "-", "-q", "--no-fail"])
            .output()
            .unwrap();
        let prefix = json_of(&prefix.stdout);
        let dot = dir.path().join(format!("{family}.dot"));
        let run = unfold()
            .arg(&net)
            .args([
                "--dot-conditions",
                "--json",
                "-",
                "-q",
                "--no-fail",
                "--dot",
            ])
            .arg(&dot)
            .output()
            .unwrap();
        assert!(run.status.success(), "{run:?}");
        let text = std::fs::read_to_string(&dot).unwrap();
        let circles = text.matches("shape=circle").count() as u64;
        let boxes = text
            .lines()
            .filter(|l| l.trim_start().starts_with("e") && l.contains("[label="))
            .count() as u64;
        assert_eq!(
            circles,
            prefix["conditions"].as_u64().unwrap(),
            "{family} conditions"
        );
        assert_eq!(boxes, prefix["events"].as_u64().unwrap(), "{family} events");
        let svg = Std::new("dot")
            .args(["-Tsvg", "-o", "/dev/null"])
            .arg(&dot)
            .output()
            .unwrap();
        assert!(svg.status.success() && svg.stderr.is_empty(), "{svg:?}");
    }
    // Programs have no conditions.
    let out = unfold()
        .arg(nets_dir().join("programs/fig1.tsys"))
        .args(["--dot-conditions", "--dot", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("draws nets only"));
}
