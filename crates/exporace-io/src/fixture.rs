//! Regression fixtures.
