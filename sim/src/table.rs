//! A small table of results, rendered as aligned text for the terminal and
//! the README, and as CSV for other tools.

use std::fmt::Write as _;

/// Column headers and rows of already-formatted cells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these headers.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        Table {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// A Markdown table with right-aligned columns (also readable as plain
    /// text in a terminal).
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|c| {
                std::iter::once(&self.headers)
                    .chain(&self.rows)
                    .filter_map(|r| r.get(c))
                    .map(String::len)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| -> String {
            let mut s = String::from("|");
            for (cell, w) in cells.iter().zip(&widths) {
                let _ = write!(s, " {cell:>w$} |");
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.headers);
        out.push('|');
        for w in &widths {
            let _ = write!(out, "{}:|", "-".repeat(w + 1));
        }
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    /// CSV: one header line, one line per row. Cells are numbers and codes,
    /// so a cell with a comma or quote is quoted, which never happens today.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let quote = |c: &String| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        let mut out = String::new();
        for row in std::iter::once(&self.headers).chain(&self.rows) {
            out.push_str(&row.iter().map(quote).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown_and_csv() {
        let mut t = Table::new(["n", "calls"]);
        t.push(vec!["10".into(), "1,5".into()]);
        assert_eq!(t.to_csv(), "n,calls\n10,\"1,5\"\n");
        assert_eq!(
            t.to_markdown(),
            "|  n | calls |\n|---:|------:|\n| 10 |   1,5 |\n"
        );
    }
}
