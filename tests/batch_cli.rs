//! `unfold batch` through the binary: one row per (net, mode), statuses of refusals, limits and
//! crashes, external tools, and an interrupted batch finished with `--resume`.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::common;
use common::{BATCH_HEADER, csv_records};

fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.join("ORACLES.tsv").is_file(),
        "{} is missing: these tests need ../shared beside the checkout",
        dir.display()
    );
    dir
}

fn unfold() -> Command {
    Command::cargo_bin("unfold").unwrap()
}

/// The CSV's rows as maps from column to value; checks the header and that every row is whole.
fn read_rows(csv: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(csv).unwrap();
    assert!(text.ends_with('\n'), "last row cut short:\n{text}");
    let mut records = csv_records(&text).into_iter();
    let header = records.next().expect("a header");
    assert_eq!(header.join(","), BATCH_HEADER);
    records
        .map(|r| {
            assert_eq!(r.len(), header.len(), "ragged row {r:?}");
            header.iter().cloned().zip(r).collect()
        })
        .collect()
}

fn pairs(rows: &[BTreeMap<String, String>]) -> HashSet<(String, String)> {
    let set: HashSet<_> = rows
        .iter()
        .map(|r| (r["net"].clone(), r["mode"].clone()))
        .collect();
    assert_eq!(set.len(), rows.len(), "duplicate (net, mode) rows");
    set
}

/// Small shared nets copied into a temp folder, with a subfolder and the MCC layout.
fn small_suite(dir: &Path) -> usize {
    let s = shared();
    let pep = [
        "do_od",
        "peterson",
        "sem",
        "gas_station",
        "recursion",
        "only_hl",
    ];
    for n in pep {
        std::fs::copy(
            s.join(format!("pep/{n}.ll_net")),
            dir.join(format!("{n}.ll_net")),
        )
        .unwrap();
    }
    std::fs::create_dir_all(dir.join("cont")).unwrap();
    std::fs::copy(s.join("pep/cont/mid3.ll_net"), dir.join("cont/mid3.ll_net")).unwrap();
    std::fs::create_dir_all(dir.join("Peterson-PT-2")).unwrap();
    std::fs::copy(
        s.join("pnml/Peterson-PT-2.pnml"),
        dir.join("Peterson-PT-2/model.pnml"),
    )
    .unwrap();
    // A file that is not a net is ignored.
    std::fs::write(dir.join("README.txt"), "not a net").unwrap();
    pep.len() + 2
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn one_row_per_net_and_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let nets = tmp.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    let count = small_suite(&nets);
    let csv = tmp.path().join("out.csv");
    let jsonl = tmp.path().join("out.jsonl");
    let out = unfold()
        .args([
            "batch",
            "--modes",
            "prefix,reach",
            "--timeout",
            "20",
            "--csv",
        ])
        .arg(&csv)
        .arg("--jsonl")
        .arg(&jsonl)
        .arg(&nets)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), count * 2);
    let set = pairs(&rows);
    assert!(set.contains(&("Peterson-PT-2".into(), "reach".into())));
    assert!(set.contains(&("cont/mid3".into(), "prefix".into())));
    for r in &rows {
        assert!(
            r["status"] == "ok" || r["status"] == "deadlock",
            "unexpected {r:?}"
        );
        assert!(r["wall_s"].parse::<f64>().unwrap() >= 0.0);
        assert!(r["peak_mb"].parse::<f64>().unwrap() > 0.0, "{r:?}");
    }
    let find = |net: &str, mode: &str| {
        rows.iter()
            .find(|r| r["net"] == net && r["mode"] == mode)
            .unwrap()
    };
    // Published figures (ORACLES.tsv): do_od has 11 events, 20 conditions; a deadlock.
    let p = find("do_od", "prefix");
    assert_eq!(
        (p["events"].as_str(), p["conditions"].as_str()),
        ("11", "20")
    );
    assert_eq!(p["states"], "");
    let r = find("do_od", "reach");
    assert_eq!(r["status"], "deadlock");
    assert_eq!(r["states"], "11");
    assert_eq!(r["events"], "");
    assert_eq!(find("Peterson-PT-2", "reach")["states"], "20754");
    // JSON lines: one object per row.
    let lines = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(lines.lines().count(), rows.len());
    for l in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v.get("status").is_some());
    }
    // The summary: per mode, then per net.
    assert!(
        stdout.contains("prefix") && stdout.contains("reach"),
        "{stdout}"
    );
    assert!(stdout.contains("20754 st"), "{stdout}");
}

#[test]
fn programs_run_in_the_dpor_and_edpor_modes() {
    // A folder with a net and two programs: the net gets dpor and reach, the programs dpor and
    // edpor (reach and prefix read nets only; edpor reads programs only).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(here.join("nets/pairs-3.ll_net"), dir.join("pairs-3.ll_net")).unwrap();
    for p in ["fig3.tsys", "lock-inversion.tsys", "racy-counter.tsys"] {
        std::fs::copy(here.join("nets/programs").join(p), dir.join(p)).unwrap();
    }
    let csv = tmp.path().join("out.csv");
    let out = unfold()
        .args(["batch", "--modes", "dpor,reach,edpor", "-q", "--csv"])
        .arg(&csv)
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    let expected: HashSet<(String, String)> = [
        ("pairs-3", "dpor"),
        ("pairs-3", "reach"),
        ("fig3.tsys", "dpor"),
        ("fig3.tsys", "edpor"),
        ("lock-inversion.tsys", "dpor"),
        ("lock-inversion.tsys", "edpor"),
        ("racy-counter.tsys", "dpor"),
        ("racy-counter.tsys", "edpor"),
    ]
    .iter()
    .map(|(n, m)| (n.to_string(), m.to_string()))
    .collect();
    assert_eq!(pairs(&rows), expected);
    let find = |net: &str, mode: &str| {
        rows.iter()
            .find(|r| r["net"] == net && r["mode"] == mode)
            .unwrap()
    };
    // Fig. 3 of the Event-DPOR paper: 3 executions.
    let f = find("fig3.tsys", "edpor");
    assert_eq!(
        (f["status"].as_str(), f["executions"].as_str()),
        ("ok", "3")
    );
    assert_eq!(f["complete"], "true");
    // A thread and the message it posts take two locks in opposite orders: a deadlock.
    let l = find("lock-inversion.tsys", "edpor");
    assert_eq!(
        (l["status"].as_str(), l["deadlocks"].as_str()),
        ("deadlock", "1")
    );
    assert_eq!(find("fig3.tsys", "dpor")["status"], "ok");
    // Two of the sixteen classes of an unprotected counter fail its final check: both DPORs
    // say so (issue 39.1), not `ok`. Event-DPOR explores every class; the DPOR's rows run with
    // cutoffs, which keep every reachable state but may cut one of two failing classes that
    // end in the same state (which one depends on the adequate order): one or two.
    for mode in ["dpor", "edpor"] {
        let r = find("racy-counter.tsys", mode);
        assert_eq!(r["status"], "assertion", "{mode}: {r:?}");
        let failures: u32 = r["assertion_failures"].parse().unwrap();
        match mode {
            "edpor" => assert_eq!(failures, 2, "{r:?}"),
            _ => assert!((1..=2).contains(&failures), "{r:?}"),
        }
        assert_eq!(r["deadlocks"], "0");
    }
    assert_eq!(find("fig3.tsys", "dpor")["assertion_failures"], "0");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only")]
fn whole_pep_folder() {
    let dir = shared().join("pep");
    let files = walk_count(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("out.csv");
    let out = unfold()
        .args([
            "batch",
            "--modes",
            "prefix,reach",
            "--timeout",
            "20",
            "--jobs",
            "2",
        ])
        .arg("--csv")
        .arg(&csv)
        .arg(&dir)
        .output()
        .unwrap();
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), files * 2);
    pairs(&rows);
    for r in &rows {
        assert!(
            ["ok", "deadlock", "timeout"].contains(&r["status"].as_str()),
            "{r:?}"
        );
    }
    // Exit 0 when every run answered, 3 when some stopped at the limit.
    let limited = rows.iter().any(|r| r["status"] == "timeout");
    assert_eq!(
        out.status.code(),
        Some(if limited { 3 } else { 0 }),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn walk_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                walk_count(&p)
            } else {
                usize::from(p.extension().is_some_and(|e| e == "ll_net" || e == "pnml"))
            }
        })
        .sum()
}

#[test]
fn refusals_limits_and_crashes_are_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let s = shared();
    let csv = tmp.path().join("out.csv");
    // A high-level net that is not a symmetric one: refused by both modes, and the batch
    // goes on.
    let refused = tmp.path().join("Philosophers-COL-000005.pnml");
    let text = std::fs::read_to_string(s.join("pnml/col/Philosophers-COL-000005.pnml")).unwrap();
    std::fs::write(
        &refused,
        text.replace("grammar/symmetricnet", "grammar/highlevelnet"),
    )
    .unwrap();
    let out = unfold()
        .args(["batch", "--modes", "prefix,reach", "--csv"])
        .arg(&csv)
        .arg(&refused)
        .arg(s.join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), 4);
    for r in rows
        .iter()
        .filter(|r| r["net"] == "Philosophers-COL-000005")
    {
        assert_eq!(r["status"], "refused", "{r:?}");
        assert_eq!(r["exit_code"], "2");
        assert!(!r["message"].is_empty(), "{r:?}");
    }
    assert_eq!(
        rows.iter().filter(|r| r["net"] == "do_od").count(),
        2,
        "{rows:?}"
    );
    // --timeout 1 on a large state space: the child stops itself, the row says timeout.
    // A run stopped by a limit makes the batch exit 3.
    let csv2 = tmp.path().join("limit.csv");
    let out = unfold()
        .args(["batch", "--modes", "reach", "--timeout", "1", "--csv"])
        .arg(&csv2)
        .arg(s.join("pep/rrr30-1.ll_net"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let rows2 = read_rows(&csv2);
    assert_eq!(rows2.len(), 1);
    assert_eq!(rows2[0]["status"], "timeout", "{rows2:?}");
    assert_eq!(rows2[0]["complete"], "false");
    // External tools that hang, crash or fail: killed at the limit, crash, error; the batch
    // exits 4 (some runs crashed or failed).
    let hang = script(tmp.path(), "hang.sh", "sleep 30");
    let crash = script(tmp.path(), "crash.sh", "kill -SEGV $$");
    let fail = script(
        tmp.path(),
        "fail.sh",
        "echo 'cannot parse the net' >&2; exit 7",
    );
    let csv3 = tmp.path().join("ext.csv");
    let start = Instant::now();
    let out = unfold()
        .args(["batch", "--modes", "", "--timeout", "1", "--csv"])
        .arg(&csv3)
        .arg("--external")
        .arg(format!("hang={} {{file}}", hang.display()))
        .arg("--external")
        .arg(format!("crash={} {{file}}", crash.display()))
        .arg("--external")
        .arg(format!("fail={} {{file}}", fail.display()))
        .arg(s.join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "a hung tool was not killed"
    );
    let rows3 = read_rows(&csv3);
    let status = |m: &str| {
        let r = rows3.iter().find(|r| r["mode"] == m).unwrap();
        (r["status"].clone(), r["message"].clone())
    };
    assert_eq!(status("hang").0, "timeout");
    assert_eq!(status("crash").0, "crash");
    assert_eq!(
        status("fail"),
        ("error".to_string(), "cannot parse the net".to_string())
    );
}

#[test]
fn external_tool_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let s = shared();
    // Prints Cunf's statistics block, after checking that it was given a PEP file.
    let fake = script(
        tmp.path(),
        "fakecunf.sh",
        "case \"$1\" in *.ll_net) ;; *) echo \"not pep: $1\" >&2; exit 9;; esac\n\
         test -s \"$1\" || exit 8\n\
         printf 'time\\t0.010\\nmem\\t1\\nhist\\t12\\nevents\\t11\\ncond\\t20\\n\
         r(h)\\t1.00\\ncutoffs\\t3\\nnet\\t%s\\n' \"$1\"",
    );
    let csv = tmp.path().join("out.csv");
    let out = unfold()
        .args(["batch", "--modes", "prefix", "--csv"])
        .arg(&csv)
        .arg("--external")
        .arg(format!("cunf={} {{pep}}", fake.display()))
        .arg(s.join("pep/do_od.ll_net"))
        .arg(s.join("pnml/Peterson-PT-2.pnml"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), 4);
    for r in rows.iter().filter(|r| r["mode"] == "cunf") {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["events"], "11");
        assert_eq!(r["conditions"], "20");
        assert_eq!(r["cutoffs"], "3");
        assert_eq!(r["histories"], "12");
        assert!(r["peak_mb"].parse::<f64>().unwrap() > 0.0);
    }
}

/// `{mci}`: the tool writes its prefix there and the row gets the sizes read from it. The tool
/// here is `unfold prefix` itself with its printed report thrown away, so the sizes can only
/// come from the `.mci`; they must equal the built-in `prefix` mode's (unfold's JSON) and, for
/// the PEP nets, ORACLES.tsv's.
#[test]
fn external_mci_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = shared();
    let exe = assert_cmd::cargo::cargo_bin("unfold");
    let csv = tmp.path().join("out.csv");
    let jsonl = tmp.path().join("out.jsonl");
    let files = [
        "pep/do_od.ll_net",
        "pep/peterson.ll_net",
        "pep/key_2.ll_net",
    ];
    let out = unfold()
        .args(["batch", "--modes", "prefix", "--timeout", "20", "--csv"])
        .arg(&csv)
        .arg("--jsonl")
        .arg(&jsonl)
        .arg("--external")
        .arg(format!(
            "self={} prefix {{pep}} -q --mci {{mci}} >/dev/null 2>&1",
            exe.display()
        ))
        .args(files.map(|f| s.join(f)))
        .arg(s.join("pnml/Peterson-PT-2.pnml"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), 8);
    let find = |net: &str, mode: &str| {
        rows.iter()
            .find(|r| r["net"] == net && r["mode"] == mode)
            .unwrap_or_else(|| panic!("no row {net} {mode}: {rows:?}"))
    };
    let sizes =
        |r: &BTreeMap<String, String>| ["events", "conditions", "cutoffs"].map(|k| r[k].clone());
    let oracles = oracle_table();
    for net in ["do_od", "peterson", "key_2", "Peterson-PT-2"] {
        let ext = find(net, "self");
        assert_eq!(ext["status"], "ok", "{ext:?}");
        assert!(ext["events"].parse::<u64>().unwrap() > 0, "{ext:?}");
        assert_eq!(sizes(ext), sizes(find(net, "prefix")), "{net}");
        if let Some(props) = oracles.get(&format!("pep/{net}.ll_net")) {
            let want =
                ["events", "conditions", "cutoffs"].map(|k| props[&format!("prefix.{k}")].clone());
            assert_eq!(sizes(ext), want, "{net}: ORACLES.tsv");
        }
    }
    // The JSON lines carry the same sizes.
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let v: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["net"] == "do_od" && v["mode"] == "self")
        .unwrap();
    assert_eq!(v["events"].to_string(), find("do_od", "self")["events"]);
}

/// A tool asked for `{mci}` that exits 0 without writing it, or writes something that is not
/// an `.mci` prefix: an error row naming the problem (and the byte offset), exit 4.
#[test]
fn external_mci_missing_or_broken() {
    let tmp = tempfile::tempdir().unwrap();
    let s = shared();
    let csv = tmp.path().join("out.csv");
    let out = unfold()
        .args(["batch", "--modes", "", "--csv"])
        .arg(&csv)
        .arg("--external")
        .arg("none=true {pep} {mci}")
        .arg("--external")
        .arg("junk=printf 'abcdef' > {mci} # {pep}")
        .arg(s.join("pep/do_od.ll_net"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    let row = |m: &str| rows.iter().find(|r| r["mode"] == m).unwrap();
    assert_eq!(row("none")["status"], "error");
    assert!(row("none")["message"].contains("no .mci"), "{rows:?}");
    assert_eq!(row("junk")["status"], "error");
    assert!(row("junk")["message"].contains("byte 4"), "{rows:?}");
    assert_eq!(row("junk")["events"], "");
}

/// ORACLES.tsv: file → property → value.
fn oracle_table() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(shared().join("ORACLES.tsv")).unwrap();
    let mut map: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() >= 3 {
            map.entry(cols[0].to_string())
                .or_default()
                .insert(cols[1].to_string(), cols[2].to_string());
        }
    }
    map
}

#[test]
fn interrupted_then_resumed() {
    let tmp = tempfile::tempdir().unwrap();
    let nets = tmp.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    let count = small_suite(&nets);
    // A slow tool makes the batch last long enough to be interrupted halfway.
    let slow = script(tmp.path(), "slow.sh", "sleep 0.4; echo 'events 5'");
    let csv = tmp.path().join("out.csv");
    let args = |cmd: &mut StdCommand| {
        cmd.args([
            "batch",
            "--modes",
            "prefix,reach",
            "--timeout",
            "20",
            "--csv",
        ])
        .arg(&csv)
        .arg("--external")
        .arg(format!("slow={} {{pep}}", slow.display()))
        .arg(&nets);
    };
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("unfold"));
    args(&mut cmd);
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first rows, then interrupt.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let n = std::fs::read_to_string(&csv)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= 4 {
            break;
        }
        assert!(Instant::now() < deadline, "no rows appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: plain system call on our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "an interrupted batch exits 3");
    let first = read_rows(&csv);
    pairs(&first);
    assert!(
        first.len() < count * 3,
        "the batch ended before the interruption"
    );
    // Resume: the finished rows are kept as they are, the rest are added, none twice.
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("unfold"));
    args(&mut cmd);
    let out = cmd.arg("--resume").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = read_rows(&csv);
    assert_eq!(all.len(), count * 3);
    assert_eq!(pairs(&all).len(), count * 3);
    assert_eq!(&all[..first.len()], &first[..]);
    // Resuming a finished batch does nothing.
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("unfold"));
    args(&mut cmd);
    let out = cmd.arg("--resume").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read_rows(&csv), all);
}

#[test]
fn bad_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        vec!["batch", "--modes", "nonsense", "x"],
        vec!["batch", "/nonexistent/folder"],
    ] {
        let out = unfold().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = unfold()
        .args(["batch", "--external", "t=echo hi"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A folder without nets.
    let out = unfold().arg("batch").arg(tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn prefix_rows_answer_the_deadlock_question() {
    // Nets with and without a dead marking: the prefix row says what the dpor and reach rows
    // say (issue 39.5), never `ok` beside their `deadlock`.
    let s = shared();
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("out.csv");
    let out = unfold()
        .args([
            "batch",
            "--modes",
            "prefix,dpor,reach",
            "--timeout",
            "60",
            "-q",
        ])
        .arg("--csv")
        .arg(&csv)
        .arg(s.join("pep/sdl_arq_deadlock.ll_net"))
        .arg(s.join("pep/elevator_2.ll_net"))
        .arg(s.join("pep/peterson.ll_net"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_rows(&csv);
    assert_eq!(rows.len(), 9);
    for net in ["sdl_arq_deadlock", "elevator_2", "peterson"] {
        let statuses: Vec<&str> = ["prefix", "dpor", "reach"]
            .iter()
            .map(|m| {
                rows.iter()
                    .find(|r| r["net"] == net && r["mode"] == *m)
                    .unwrap_or_else(|| panic!("no row {net} {m}"))["status"]
                    .as_str()
            })
            .collect();
        let want = if net == "peterson" { "ok" } else { "deadlock" };
        assert_eq!(statuses, [want; 3], "{net}");
    }
}
