//! Inputs that once crashed, hung or exhausted a reader (tests/fuzz_regressions/READER/, see
//! its README), fed through the real binary: each must end cleanly, with exit code 0 to 3,
//! never a panic (101), a signal or a hang. Some hand-found inputs are too large to keep as
//! files and are generated here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Longer than any run here should take: past it the input hangs the binary.
const HANG: Duration = Duration::from_secs(60);

fn inputs(reader: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(reader);
    // A reader nobody has found a crash in yet has no folder (git keeps no empty ones).
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// Runs `unfold ARGS`, killing it (and failing) when it hangs.
fn unfold(args: &[&str], file: &Path) -> Output {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("unfold"))
        .args(args)
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > HANG {
            child.kill().unwrap();
            panic!("unfold {args:?} {} hangs", file.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A clean end: an exit code in `codes`, no panic message.
fn assert_clean(args: &[&str], file: &Path, codes: &[i32]) -> Output {
    let out = unfold(args, file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "unfold {args:?} {}: {:?} (want one of {codes:?})\n{stderr}",
        file.display(),
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    out
}

/// Reading, converting, and exploring a little (the model builders behind the readers).
fn check_net(file: &Path) {
    let read = assert_clean(&["info", "-q"], file, &[0, 2]);
    if read.status.code() == Some(2) {
        return; // refused with an error: nothing built
    }
    assert_clean(&["convert", "--to", "pep", "-"], file, &[0]);
    assert_clean(&["convert", "--to", "pnml", "-"], file, &[0]);
    let limits = ["--timeout", "10", "--mem-limit", "512M", "-q"];
    assert_clean(
        &[&["run", "--max-depth", "32"][..], &limits].concat(),
        file,
        &[0, 1, 2, 3],
    );
    assert_clean(&[&["reach"][..], &limits].concat(), file, &[0, 1, 2, 3]);
    assert_clean(&[&["prefix"][..], &limits].concat(), file, &[0, 1, 2, 3]);
}

#[test]
fn pnml_regressions() {
    for f in inputs("pnml") {
        check_net(&f);
    }
}

#[test]
fn pep_regressions() {
    for f in inputs("pep") {
        check_net(&f);
    }
}

#[test]
fn tsys_regressions() {
    let files = inputs("tsys");
    assert!(!files.is_empty(), "tests/fuzz_regressions/tsys is missing");
    for f in files {
        let args = ["run", "--max-depth", "32", "--timeout", "10", "-q"];
        assert_clean(&args, &f, &[0, 1, 2, 3]);
    }
}

#[test]
fn deep_programs_are_refused() {
    // Found by hand: nesting 10^5 deep overflowed the stack of the parser (parentheses,
    // blocks) or of the passes after it (unary operators, operator chains): now a positioned
    // error.
    let n = 100_000;
    let programs = [
        format!(
            "var x;\nthread t {{ r = {}1{}; x = r; }}\n",
            "(".repeat(n),
            ")".repeat(n)
        ),
        format!(
            "var x;\nthread t {{ {}x = 1;{} }}\n",
            "if (1) { ".repeat(n),
            " }".repeat(n)
        ),
        format!("var x;\nthread t {{ r = {}1; x = r; }}\n", "-".repeat(n)),
        format!("var x;\nthread t {{ r = 1{}; x = r; }}\n", " + 1".repeat(n)),
        format!("var x;\nthread t {{ r = {}1; x = r; }}\n", "!".repeat(n)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in programs.iter().enumerate() {
        let file = dir.path().join(format!("deep{i}.tsys"));
        std::fs::write(&file, text).unwrap();
        let out = assert_clean(&["run", "-q"], &file, &[2]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("nested too deep"), "{stderr}");
        assert!(
            stderr.contains(&format!("{}:2:", file.display())),
            "{stderr}"
        );
    }
    // At the limit, a program is still read and run.
    let ok = dir.path().join("deep-ok.tsys");
    let depth = unfold::formats::tsys::MAX_NESTING - 2;
    std::fs::write(
        &ok,
        format!(
            "var x;\nthread t {{ r = {}1{}; x = r; }}\n",
            "(".repeat(depth),
            ")".repeat(depth)
        ),
    )
    .unwrap();
    assert_clean(&["run", "-q"], &ok, &[0]);
}
