//! The CSV reader of data and parameter files: comma-separated numbers, one record per line
//! (the format the `sosdp` command-line tool reads).
//!
//! The format, exactly:
//!
//! - Lines end with `\n` or `\r\n`; the final line ending is optional. A leading UTF-8 byte
//!   order mark is ignored.
//! - With [`Header::Skip`] (a data file read with the tool's `--header`) the first line is a
//!   header and is skipped, whatever it holds. With [`Header::Absent`] every line is a record,
//!   the first one included: a first line without any number is an error that suggests
//!   `--header`. Parameter files (a centre, a candidate theta, a candidate matrix) are read with
//!   [`Header::Never`].
//! - A record is fields separated by commas; a field is a decimal number (as Rust's `f64`
//!   parser reads it: `1`, `-2.5`, `3e-4`) with optional surrounding spaces or tabs. There is no
//!   quoting. Every record has as many fields as the first one.
//! - No line is ever skipped (the number of records `n` is public, and the plan depends on it):
//!   an empty line — anywhere, including after the last record, beyond its line ending — and a
//!   line of empty fields (`,,`) are errors naming their line, as is a field that is not a number,
//!   NaN or infinite, a ragged line, and a file without records.
//!
//! Errors name the line ("row", 1-based, counted in the file, the header included), the column
//! (1-based) and the offending field; [`read_matrix`] and [`read_vector`] prefix the file.
use nalgebra::DMatrix;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a CSV file could not be read; each prints as one line naming the file.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file is not in the format of this module.
    #[error("{path}: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// What is wrong and where (row, column, field).
        message: String,
    },
}

/// How the first line of a CSV input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// The first line is a header and is skipped (a data file read with `--header`).
    Skip,
    /// The first line is a record (a data file read without `--header`); if none of its fields
    /// is a number, the error suggests `--header`.
    Absent,
    /// The first line is a record and the input cannot have a header (parameter files).
    Never,
}

impl Header {
    /// The header mode of a data file, from its command's `--header` flag.
    pub fn data(flag: bool) -> Self {
        if flag { Header::Skip } else { Header::Absent }
    }
}

/// Read a numeric table (`rows x columns`) from a CSV file in the format of the module doc.
pub fn read_matrix(path: &Path, header: Header) -> Result<DMatrix<f64>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReadError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_matrix(&text, header).map_err(|message| ReadError::Csv {
        path: path.to_path_buf(),
        message,
    })
}

/// Read a vector: a CSV parameter file (no header) holding exactly one row.
pub fn read_vector(path: &Path) -> Result<Vec<f64>, ReadError> {
    let m = read_matrix(path, Header::Never)?;
    if m.nrows() != 1 {
        return Err(ReadError::Csv {
            path: path.to_path_buf(),
            message: format!("expected a vector (one row), found {} rows", m.nrows()),
        });
    }
    Ok(m.row(0).iter().copied().collect())
}

/// Parse CSV text in the format of the module doc into a matrix; the error is a message naming
/// the row, the column and the field, without the file name.
pub fn parse_matrix(text: &str, header: Header) -> Result<DMatrix<f64>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut values: Vec<f64> = Vec::new();
    // (width, line) of the first record.
    let mut first: Option<(usize, usize)> = None;
    let mut rows = 0;
    // An empty text has no lines (splitting it would give one empty line).
    let lines = if text.is_empty() {
        None
    } else {
        Some(body.split('\n'))
    };
    for (index, line) in lines.into_iter().flatten().enumerate() {
        let row = index + 1;
        if index == 0 && header == Header::Skip {
            continue;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let fields: Vec<&str> = line
            .split(',')
            .map(|f| f.trim_matches([' ', '\t']))
            .collect();
        if fields.iter().all(|f| f.is_empty()) {
            return Err(if fields.len() == 1 {
                format!(
                    "row {row} is empty (empty lines are not allowed: every line is a record, n is public)"
                )
            } else {
                format!(
                    "row {row}: all {} fields are empty (a record must be numbers)",
                    fields.len()
                )
            });
        }
        match first {
            None => first = Some((fields.len(), row)),
            Some((width, at)) if width != fields.len() => {
                return Err(format!(
                    "row {row} has {} fields, expected {width} like row {at} (ragged rows)",
                    fields.len()
                ));
            }
            Some(_) => {}
        }
        let header_like = index == 0
            && header == Header::Absent
            && fields.iter().all(|f| f.parse::<f64>().is_err());
        for (col, field) in fields.iter().enumerate() {
            let location = || format!("row {row}, column {}", col + 1);
            let value = field.parse::<f64>().map_err(|_| {
                let hint = if header_like {
                    " (if the first line is a header, pass --header)"
                } else {
                    ""
                };
                format!("{}: '{field}' is not a number{hint}", location())
            })?;
            if !value.is_finite() {
                return Err(format!("{}: value '{field}' is not finite", location()));
            }
            values.push(value);
        }
        rows += 1;
    }
    let (width, _) = first.ok_or_else(|| match header {
        Header::Skip if !text.is_empty() => {
            "no records after the header line (empty file)".to_string()
        }
        _ => "no records (empty file)".to_string(),
    })?;
    Ok(DMatrix::from_row_slice(rows, width, &values))
}

#[cfg(test)]
mod tests {
    use super::{Header, parse_matrix};

    fn err(text: &str, header: Header) -> String {
        parse_matrix(text, header).unwrap_err()
    }

    #[test]
    fn parses_records_with_spaces_crlf_and_an_optional_final_newline() {
        for text in [
            "1,2\n3, 4.5\n",
            "1,2\n3, 4.5",
            "1,2\r\n3 ,\t4.5\r\n",
            "\u{feff}1,2\n3,4.5\n",
        ] {
            let m = parse_matrix(text, Header::Absent).unwrap();
            assert_eq!(m.shape(), (2, 2), "{text:?}");
            assert_eq!((m[(0, 1)], m[(1, 1)]), (2.0, 4.5), "{text:?}");
        }
        assert_eq!(
            parse_matrix("-1e-3\n", Header::Never).unwrap().shape(),
            (1, 1)
        );
    }

    #[test]
    fn a_header_is_skipped_only_when_declared() {
        let m = parse_matrix("a,b\n1,2\n3,4\n", Header::Skip).unwrap();
        assert_eq!(m.shape(), (2, 2));
        assert_eq!(m[(0, 0)], 1.0);
        // The header line is skipped whatever it holds: also numbers, or nothing.
        assert_eq!(
            parse_matrix("1,2\n3,4\n", Header::Skip).unwrap().shape(),
            (1, 2)
        );
        assert_eq!(
            parse_matrix("\n3,4\n", Header::Skip).unwrap().shape(),
            (1, 2)
        );
        // Row numbers count the header line.
        assert_eq!(
            err("a,b\n1,2\n3,x\n", Header::Skip),
            "row 3, column 2: 'x' is not a number"
        );
    }

    #[test]
    fn a_non_numeric_first_line_without_header_suggests_the_flag() {
        let e = err("a,b\n1,2\n", Header::Absent);
        assert_eq!(
            e,
            "row 1, column 1: 'a' is not a number (if the first line is a header, pass --header)"
        );
        // Parameter files take no header: no suggestion.
        assert_eq!(
            err("a,b\n1,2\n", Header::Never),
            "row 1, column 1: 'a' is not a number"
        );
        // Only a first line without any number gets the suggestion.
        assert_eq!(
            err("1,b\n1,2\n", Header::Absent),
            "row 1, column 2: 'b' is not a number"
        );
        assert_eq!(
            err("1,2\na,b\n", Header::Absent),
            "row 2, column 1: 'a' is not a number"
        );
    }

    #[test]
    fn empty_lines_and_empty_records_are_errors_naming_their_row() {
        assert!(err("1,2\n\n3,4\n", Header::Absent).starts_with("row 2 is empty"));
        assert!(err("1,2\r\n\r\n3,4\r\n", Header::Absent).starts_with("row 2 is empty"));
        assert!(err("1,2\n  \n3,4\n", Header::Absent).starts_with("row 2 is empty"));
        assert!(err("\n1,2\n", Header::Absent).starts_with("row 1 is empty"));
        // One line ending after the last record is normal; a blank line after it is not.
        assert!(err("1,2\n3,4\n\n", Header::Absent).starts_with("row 3 is empty"));
        assert!(err("1\n2\n\n", Header::Absent).starts_with("row 3 is empty"));
        assert!(err("1,2\n,\n3,4\n", Header::Absent).starts_with("row 2: all 2 fields are empty"));
        assert!(err("a,b\n1,2\n , \n", Header::Skip).starts_with("row 3: all 2 fields are empty"));
        assert_eq!(
            err("1,2\n3,\n", Header::Absent),
            "row 2, column 2: '' is not a number"
        );
    }

    #[test]
    fn rejects_bad_fields_and_shapes_with_a_located_message() {
        assert_eq!(
            err("1,2\n3\n", Header::Absent),
            "row 2 has 1 fields, expected 2 like row 1 (ragged rows)"
        );
        assert_eq!(
            err("1,2\n3,4,5\n", Header::Absent),
            "row 2 has 3 fields, expected 2 like row 1 (ragged rows)"
        );
        assert_eq!(
            err("1,NaN\n", Header::Absent),
            "row 1, column 2: value 'NaN' is not finite"
        );
        assert_eq!(
            err("1,2\n-inf,2\n", Header::Absent),
            "row 2, column 1: value '-inf' is not finite"
        );
        assert_eq!(
            err("1,2\n3,1e400\n", Header::Absent),
            "row 2, column 2: value '1e400' is not finite"
        );
        assert_eq!(
            err("1,x\n", Header::Never),
            "row 1, column 2: 'x' is not a number"
        );
        assert_eq!(
            err("1,2\n3,\"4\"\n", Header::Absent),
            "row 2, column 2: '\"4\"' is not a number"
        );
        assert_eq!(err("", Header::Absent), "no records (empty file)");
        assert_eq!(err("", Header::Skip), "no records (empty file)");
        assert_eq!(
            err("a,b\n", Header::Skip),
            "no records after the header line (empty file)"
        );
        assert_eq!(
            err("a,b", Header::Skip),
            "no records after the header line (empty file)"
        );
    }
}
