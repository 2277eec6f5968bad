//! Statistics of a run, printed as an aligned human block or as one JSON object.
//!
//! Both forms come from the same ordered list of fields, so they never disagree. JSON names are
//! stable (DESIGN §7); human labels are for reading.

use std::io::{self, Write};

use serde_json::{Map, Value};

/// One statistic: its stable JSON name, its human label and its value.
#[derive(Clone, Debug)]
pub struct Field {
    /// JSON key (stable).
    pub key: &'static str,
    /// Label in the human block.
    pub label: &'static str,
    /// The value.
    pub value: Value,
    /// Whether the human block shows it (some fields read better elsewhere, or only in JSON).
    pub human: bool,
}

/// An ordered set of statistics.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    fields: Vec<Field>,
}

impl Stats {
    /// No fields yet.
    pub fn new() -> Self {
        Stats::default()
    }

    /// Adds a field shown in both forms.
    pub fn add(&mut self, key: &'static str, label: &'static str, value: impl Into<Value>) {
        self.fields.push(Field {
            key,
            label,
            value: value.into(),
            human: true,
        });
    }

    /// Adds a field shown in JSON only.
    pub fn add_json(&mut self, key: &'static str, value: impl Into<Value>) {
        self.fields.push(Field {
            key,
            label: "",
            value: value.into(),
            human: false,
        });
    }

    /// The value of a field.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.key == key).map(|f| &f.value)
    }

    /// The JSON object.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        for f in &self.fields {
            map.insert(f.key.to_string(), f.value.clone());
        }
        Value::Object(map)
    }

    /// Writes the aligned human block (fields whose value is null are left out).
    pub fn write_human(&self, out: &mut dyn Write) -> io::Result<()> {
        let shown = || self.fields.iter().filter(|f| f.human);
        let width = shown().map(|f| f.label.len()).max().unwrap_or(0);
        for f in shown() {
            let v = match &f.value {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
                Value::Number(n) => match n.as_f64() {
                    Some(x) if n.is_f64() => format!("{x:.3}"),
                    _ => n.to_string(),
                },
                other => other.to_string(),
            };
            writeln!(out, "{:<width$}  {v}", f.label)?;
        }
        Ok(())
    }
}

/// Renders a byte count for people (`12.3 MiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_and_json_agree() {
        let mut s = Stats::new();
        s.add("states", "reachable states", 42u64);
        s.add("safe", "1-safe", true);
        s.add("witness", "deadlock witness", Value::Null);
        s.add_json("bits", 1);
        let mut out = Vec::new();
        s.write_human(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "reachable states  42\n1-safe            yes\n");
        assert_eq!(s.to_json()["states"], 42);
        assert_eq!(s.to_json()["bits"], 1);
        assert_eq!(human_bytes(3 * 1024 * 1024), "3.0 MiB");
    }
}
