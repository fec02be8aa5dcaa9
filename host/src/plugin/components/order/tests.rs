use super::{PluginOrder, UNRANKED};

fn ids(order: &PluginOrder) -> Vec<&str> {
    order.iter().map(String::as_str).collect()
}

#[test]
fn ranked_plugins_follow_the_configuration_whatever_order_they_register_in() {
    let mut order = PluginOrder::default();
    order.place("embedder.added", UNRANKED);
    order.place("c.second_runner", 1);
    order.place("b.first_runner", 0);
    order.place("late.unranked", UNRANKED);
    order.place("a.first_runner", 0);
    order.place("d.pool", 7);
    assert_eq!(
        ids(&order),
        [
            "a.first_runner",
            "b.first_runner",
            "c.second_runner",
            "d.pool",
            "embedder.added",
            "late.unranked"
        ]
    );
    // Registering again (a runner restarted) keeps the place.
    order.place("a.first_runner", 5);
    assert_eq!(ids(&order)[0], "a.first_runner");
}
