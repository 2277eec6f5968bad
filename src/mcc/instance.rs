//! An instance folder of the contest and the BenchKit environment: whether the net is
//! coloured, and the time and memory the run may take.

use std::path::Path;
use std::time::Duration;

use super::answer::{COLORED_TRUE, ENV_MEMORY, ENV_TIME, ISCOLORED_FILE};

/// A BenchKit variable that does not hold what the protocol says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceError {
    /// A confinement variable is not a positive number.
    #[error("{name}={value} is not a positive number")]
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The `iscolored` file cannot be read.
    #[error("cannot read {path}: {message}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

/// The time and memory a run may take, from the BenchKit variables.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Confinement {
    /// The time budget: `BK_TIME_CONFINEMENT` seconds less 5 % for answering.
    pub time: Option<Duration>,
    /// The explorers' memory: three quarters of `BK_MEMORY_CONFINEMENT` MiB, the rest being
    /// the net, the allocator and the process.
    pub memory: Option<u64>,
}

impl Confinement {
    /// Reads the confinement from the variables `var` returns (`std::env::var(name).ok()` for
    /// the process's environment); an unset or empty variable is no confinement.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, InstanceError> {
        let number = |name: &'static str| -> Result<Option<f64>, InstanceError> {
            match var(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Ok(None),
                Some(v) => match v.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() && x > 0.0 => Ok(Some(x)),
                    _ => Err(InstanceError::NotANumber { name, value: v }),
                },
            }
        };
        Ok(Confinement {
            time: number(ENV_TIME)?.map(|s| Duration::from_secs_f64(s * 0.95)),
            memory: number(ENV_MEMORY)?.map(|mib| (mib * 1024.0 * 1024.0 * 0.75) as u64),
        })
    }
}

/// Whether the folder `dir` declares a coloured net (`iscolored` holds `TRUE`); a folder
/// without the file holds a P/T net.
pub fn is_colored(dir: &Path) -> Result<bool, InstanceError> {
    let path = dir.join(ISCOLORED_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.trim() == COLORED_TRUE),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(InstanceError::Unreadable {
            path: path.display().to_string(),
            message: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(time: Option<&str>, memory: Option<&str>) -> impl Fn(&str) -> Option<String> {
        let (time, memory) = (time.map(String::from), memory.map(String::from));
        move |name| match name {
            ENV_TIME => time.clone(),
            ENV_MEMORY => memory.clone(),
            _ => None,
        }
    }

    #[test]
    fn confinement_leaves_room_for_answering() {
        let c = Confinement::from_vars(vars(Some("100"), Some("1024"))).unwrap();
        assert_eq!(c.time, Some(Duration::from_secs(95)));
        assert_eq!(c.memory, Some(768 << 20));
        let none = Confinement::from_vars(vars(None, Some(" "))).unwrap();
        assert_eq!(none, Confinement::default());
    }

    #[test]
    fn confinement_that_is_not_a_positive_number_is_an_error() {
        for bad in ["-3", "0", "soon", "inf"] {
            let e = Confinement::from_vars(vars(Some(bad), None)).unwrap_err();
            assert!(e.to_string().contains("BK_TIME_CONFINEMENT="), "{e}");
        }
    }

    #[test]
    fn a_folder_without_iscolored_holds_a_pt_net() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_colored(dir.path()).unwrap());
        std::fs::write(dir.path().join(ISCOLORED_FILE), "TRUE\n").unwrap();
        assert!(is_colored(dir.path()).unwrap());
        std::fs::write(dir.path().join(ISCOLORED_FILE), "FALSE\n").unwrap();
        assert!(!is_colored(dir.path()).unwrap());
    }
}
