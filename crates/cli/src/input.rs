//! CSV input: comma-separated numbers, one record per row, an optional header row.
//!
//! A vector is one row; a `d x d` matrix is `d` rows. Every problem — a missing file, an empty
//! file, a ragged row, a field that is not a number, NaN or infinity — is an error naming the
//! file, the row and the column.
use crate::CliError;
use nalgebra::DMatrix;
use std::path::Path;

/// Read a numeric table (`rows x columns`) from a CSV file.
pub fn read_matrix(path: &Path) -> Result<DMatrix<f64>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read { path: path.to_path_buf(), source })?;
    parse_matrix(&text).map_err(|message| CliError::Csv { path: path.to_path_buf(), message })
}

/// Read a vector: a CSV file holding exactly one row.
pub fn read_vector(path: &Path) -> Result<Vec<f64>, CliError> {
    let m = read_matrix(path)?;
    if m.nrows() != 1 {
        return Err(CliError::Csv {
            path: path.to_path_buf(),
            message: format!("expected a vector (one row), found {} rows", m.nrows()),
        });
    }
    Ok(m.row(0).iter().copied().collect())
}

/// Parse CSV text into a matrix; the error is a message without the file name.
pub fn parse_matrix(text: &str) -> Result<DMatrix<f64>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut values: Vec<f64> = Vec::new();
    let mut width: Option<usize> = None;
    let mut rows = 0;
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("row {}: {e}", line + 1))?;
        if record.iter().all(|f| f.is_empty()) {
            continue;
        }
        let parsed: Vec<Result<f64, _>> = record.iter().map(str::parse::<f64>).collect();
        if line == 0 && parsed.iter().all(Result::is_err) {
            continue; // header row
        }
        match width {
            None => width = Some(record.len()),
            Some(w) if w != record.len() => {
                return Err(format!("row {} has {} fields, expected {w} (ragged rows)", line + 1, record.len()));
            }
            Some(_) => {}
        }
        for (col, (field, value)) in record.iter().zip(parsed).enumerate() {
            let value = value.map_err(|_| format!("row {}, column {}: '{field}' is not a number", line + 1, col + 1))?;
            if !value.is_finite() {
                return Err(format!("row {}, column {}: value '{field}' is not finite", line + 1, col + 1));
            }
            values.push(value);
        }
        rows += 1;
    }
    let width = width.ok_or_else(|| "no data rows (empty file)".to_string())?;
    Ok(DMatrix::from_row_slice(rows, width, &values))
}

#[cfg(test)]
mod tests {
    use super::parse_matrix;

    #[test]
    fn parses_with_and_without_header() {
        let m = parse_matrix("a,b\n1,2\n3, 4.5\n").unwrap();
        assert_eq!(m.shape(), (2, 2));
        assert_eq!(m[(1, 1)], 4.5);
        assert_eq!(parse_matrix("1,2\n\n3,4\n").unwrap().shape(), (2, 2));
    }

    #[test]
    fn rejects_bad_input_with_a_located_message() {
        assert!(parse_matrix("1,2\n3\n").unwrap_err().contains("ragged"));
        assert!(parse_matrix("1,NaN\n").unwrap_err().contains("not finite"));
        assert!(parse_matrix("1,inf\n").unwrap_err().contains("not finite"));
        assert!(parse_matrix("1,x\n").unwrap_err().contains("row 1, column 2"));
        assert!(parse_matrix("").unwrap_err().contains("empty"));
        assert!(parse_matrix("a,b\n").unwrap_err().contains("empty"));
    }
}
