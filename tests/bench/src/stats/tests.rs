use std::time::Duration;

use super::{Latency, median, percentile, ratio};

#[test]
fn nearest_rank_percentiles() {
    let mut samples: Vec<Duration> = (1..=100).rev().map(Duration::from_micros).collect();
    let summary = Latency::of(&mut samples);
    assert_eq!(summary.samples, 100);
    assert_eq!(summary.p50_us, 50.0);
    assert_eq!(summary.p99_us, 99.0);
    assert_eq!(summary.mean_us, 50.5);
    assert_eq!(percentile(&samples, 100.0), Duration::from_micros(100));
    assert_eq!(percentile(&samples, 0.0), Duration::from_micros(1));
}

#[test]
fn empty_inputs_give_zeros_not_nan() {
    assert_eq!(Latency::of(&mut []).p99_us, 0.0);
    assert_eq!(median(&[]), 0.0);
    assert_eq!(ratio(1.0, 0.0), 0.0);
}

#[test]
fn median_of_even_and_odd_counts() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
}
