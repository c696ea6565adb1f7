//! The commands that show solutions rather than count them: `list`, `solve` and `check`. Each takes the
//! parsed arguments, calls the library and writes its results; `main` maps what they return to exit codes.

pub mod check;
pub mod list;
pub mod solve;
