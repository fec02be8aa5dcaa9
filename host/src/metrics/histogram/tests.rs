use std::sync::Arc;
use std::time::Duration;

use super::{BUCKETS, LatencyHistogram, bucket_of, upper_edge};

#[test]
fn every_value_falls_in_a_bucket_whose_upper_edge_is_within_one_sixteenth() {
    let mut value = 1u64;
    while value < 1 << 37 {
        for probe in [value, value + 1, value * 3 / 2, value * 2 - 1] {
            let bucket = bucket_of(probe);
            let edge = upper_edge(bucket);
            assert!(
                edge >= probe,
                "{probe} is above its bucket's upper edge {edge}"
            );
            assert!(
                (edge - probe) * 16 <= probe,
                "bucket of {probe} is too wide: edge {edge}"
            );
            if bucket > 0 {
                assert!(
                    upper_edge(bucket - 1) < probe,
                    "{probe} belongs in an earlier bucket"
                );
            }
        }
        value *= 2;
    }
}

#[test]
fn buckets_are_monotonic_and_huge_values_land_in_the_last_one() {
    let mut previous = 0;
    for value in (0..5000u64).chain([1 << 20, (1 << 20) + 1, 1 << 36, (1 << 38) - 1]) {
        let bucket = bucket_of(value);
        assert!(bucket >= previous, "bucket of {value} went backwards");
        previous = bucket;
    }
    assert_eq!(bucket_of((1 << 38) - 1), BUCKETS - 1);
    assert_eq!(bucket_of(1 << 38), BUCKETS - 1);
    assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
}

#[test]
fn quantiles_of_a_uniform_spread_are_within_the_bucket_precision() {
    let histogram = LatencyHistogram::new();
    for millis in 1..=1000u64 {
        histogram.record(Duration::from_millis(millis));
    }
    let [p50, p90, p99, p100] = histogram.quantiles([0.5, 0.9, 0.99, 1.0]);
    for (got, want) in [
        (p50, 500_000u64),
        (p90, 900_000),
        (p99, 990_000),
        (p100, 1_000_000),
    ] {
        assert!(
            got >= want && got <= want + want / 16,
            "quantile {got} µs, want about {want} µs"
        );
    }
    assert_eq!(
        p100,
        histogram.max_micros(),
        "the top quantile is capped at the maximum"
    );
    assert_eq!(histogram.count(), 1000);
    assert_eq!(histogram.sum_micros(), (1..=1000u64).sum::<u64>() * 1000);
}

#[test]
fn an_empty_histogram_reports_zeros_and_one_value_reports_itself() {
    let histogram = LatencyHistogram::new();
    assert_eq!(histogram.quantiles([0.5, 0.99]), [0, 0]);
    histogram.record(Duration::from_micros(12_345));
    assert_eq!(histogram.quantiles([0.0, 0.5, 1.0]), [12_345; 3]);
}

#[test]
fn concurrent_records_are_all_counted() {
    let histogram = Arc::new(LatencyHistogram::new());
    let threads: Vec<_> = (0..4)
        .map(|thread| {
            let histogram = histogram.clone();
            std::thread::spawn(move || {
                for i in 0..10_000u64 {
                    histogram.record(Duration::from_micros(thread * 1000 + i));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(histogram.count(), 40_000);
    let [p100] = histogram.quantiles([1.0]);
    assert_eq!(p100, 3000 + 9_999);
}
