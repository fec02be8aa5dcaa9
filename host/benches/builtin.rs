//! Built-in tool costs: full-text memory search over 10,000 memories (English and Chinese;
//! selective and very common words),
//! `tool_search` scoring over 500 deferred tools, `fetch_history` on a 10,000-message stream,
//! and a whole three-call model turn through the executor, registry and store.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use maitool_host::ToolRegistry;
use maitool_host::builtin::engine::{MemoryMode, MemoryQuery, NewMemory, NewMessage};
use maitool_host::builtin::{
    BuiltinConfig, BuiltinToolProvider, DeferredTool, Discovery, EngineBridge, Store, StoreEngine,
    ToolCallExecutor, search,
};
use maitool_host::llm::ModelApi;
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::json;
use tokio::runtime::Runtime;

/// Words common to many memories (each appears in about half of them) ...
const COMMON: &[&str] = &[
    "alice", "bob", "carol", "tea", "coffee", "train", "river", "picnic", "rust", "python",
    "concert", "birthday", "cat", "dog", "rain", "summer", "winter", "lisbon", "tokyo", "chess",
];
/// ... and syllables for a large vocabulary of rare words, as real text has.
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ra", "tu", "ne", "so", "vi", "pe", "du", "ha", "zo",
];
const HANZI: &str = "我们昨天一起去吃了火锅麦麦很开心小明喜欢打篮球下雨天适合看书周末去公园散步";

/// A deterministic generator, so every run indexes the same text.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % bound
    }

    /// One of 12^3 = 1,728 rare words.
    fn rare_word(&mut self) -> String {
        (0..3)
            .map(|_| SYLLABLES[self.next(SYLLABLES.len())])
            .collect()
    }

    /// Two common words, ten rare ones and eight Chinese characters.
    fn sentence(&mut self) -> String {
        let hanzi: Vec<char> = HANZI.chars().collect();
        let mut text: Vec<String> = (0..2)
            .map(|_| COMMON[self.next(COMMON.len())].to_owned())
            .collect();
        text.extend((0..10).map(|_| self.rare_word()));
        let start = self.next(hanzi.len() - 8);
        text.push(hanzi[start..start + 8].iter().collect());
        text.join(" ")
    }
}

fn memory_store(rt: &Runtime) -> Store {
    rt.block_on(async {
        let store = Store::in_memory().await.unwrap();
        let mut lcg = Lcg(7);
        for n in 0..10_000 {
            let kind = ["fact", "episode", "summary"][n % 3];
            store
                .add_memory(NewMemory {
                    kind: kind.into(),
                    content: lcg.sentence(),
                    ..NewMemory::default()
                })
                .await
                .unwrap();
        }
        store
    })
}

fn memory_search(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let store = memory_store(&rt);
    let query = |text: &str, mode: MemoryMode| MemoryQuery {
        query: text.into(),
        mode,
        limit: 10,
        respect_filter: true,
        ..MemoryQuery::default()
    };
    let mut group = c.benchmark_group("memory_search_10k");
    let cases = [
        ("two_rare_words", "kalomi tunevi", MemoryMode::Search),
        ("two_common_words", "lisbon chess", MemoryMode::Search),
        ("chinese_question", "小明喜欢什么运动", MemoryMode::Search),
        ("aggregate_common", "picnic river", MemoryMode::Aggregate),
    ];
    for (name, text, mode) in cases {
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    black_box(store.search_memories(query(text, mode)).await.unwrap())
                })
            })
        });
    }
    group.finish();
}

fn tool_search_scoring(c: &mut Criterion) {
    let mut lcg = Lcg(11);
    let tools: Vec<DeferredTool> = (0..500)
        .map(|n| DeferredTool {
            name: format!("{}_{}_{n}", COMMON[lcg.next(COMMON.len())], lcg.rare_word()),
            description: lcg.sentence(),
        })
        .collect();
    c.bench_function("tool_search_500_deferred", |b| {
        b.iter(|| black_box(search(&tools, black_box("rust chess"), 5)))
    });
}

struct Wired {
    executor: ToolCallExecutor,
    registry: Arc<ToolRegistry>,
}

fn wired(rt: &Runtime, config: BuiltinConfig) -> Wired {
    rt.block_on(async {
        let store = Store::in_memory().await.unwrap();
        let mut lcg = Lcg(3);
        for n in 0..10_000 {
            store
                .append_message(NewMessage {
                    message_id: format!("m{n}"),
                    stream_id: "s1".into(),
                    sender_id: "u1".into(),
                    text: lcg.sentence(),
                    ..NewMessage::default()
                })
                .await
                .unwrap();
            if n < 2_000 {
                store
                    .add_memory(NewMemory {
                        content: lcg.sentence(),
                        ..NewMemory::default()
                    })
                    .await
                    .unwrap();
            }
        }
        let engine: Arc<dyn EngineBridge> = Arc::new(StoreEngine::new(store));
        let discovery = Arc::new(Discovery::new());
        let provider = BuiltinToolProvider::new(config, engine.clone(), discovery.clone());
        let registry = Arc::new(ToolRegistry::new());
        registry.register_provider(provider);
        discovery.attach_registry(&registry);
        Wired {
            executor: ToolCallExecutor::new(registry.clone(), engine),
            registry,
        }
    })
}

fn context() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "session".into(),
        stream_id: "s1".into(),
        is_group_chat: Some(true),
        ..ToolExecutionContext::default()
    }
}

fn history_and_turns(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let world = wired(
        &rt,
        BuiltinConfig {
            focus_mode: true,
            ..BuiltinConfig::default()
        },
    );
    let ctx = context();
    let fetch = ToolInvocation::new(
        "fetch_history",
        serde_json::Map::from_iter([("num".into(), json!(20))]),
    );
    c.bench_function("fetch_history_20_of_10k", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(world.registry.invoke(fetch.clone(), &ctx).await) })
        })
    });
    let call = |id: &str, name: &str, arguments: serde_json::Value| json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}});
    let turn = json!([
        call("c1", "query_memory", json!({"query": "tea picnic"})),
        call("c2", "tool_search", json!({"query": "forward"})),
        call("c3", "fetch_history", json!({"num": 10})),
    ]);
    c.bench_function("executor_turn_3_calls", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(
                    world
                        .executor
                        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
                        .await
                        .unwrap(),
                )
            })
        })
    });
}

criterion_group!(
    benches,
    memory_search,
    tool_search_scoring,
    history_and_turns
);
criterion_main!(benches);
