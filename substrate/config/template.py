"""The commented `config.toml` that `memory init` writes: every key with its default."""

CONFIG_TEMPLATE = """\
# Memory workspace configuration. Every key is optional: an absent key takes
# the default shown in its comment.

[memory]
# Master switch. false = tier "off": nothing is injected or captured.
enabled = true

[memory.v3]
# v3 is the lane-based read path and the tier new workspaces start on.
live = true
# card_budget_chars = 2400     # size of the <memory> card
# max_pages = 8                # pages on the card, all lanes together (the budget cuts first)
# card_excerpt_decay = 0.5     # the k-th search hit gets 0.5^k of the excerpt room (1: equal)
# quota_core = 2               # per-lane caps: core, entity, sim, hot, edges, fresh
# quota_entity = 3
# quota_sim = 4
# quota_hot = 2
# quota_edges = 2
# quota_fresh = 0              # off: on LoCoMo it only displaced relevant pages
# backfill = true              # room the quotas leave goes to the lanes' next pages
# sim_floor_dense = 0.25       # a sim page needs this cosine or this BM25 score
# sim_floor_bm25 = 2.0
# fresh_floor_dense = 0.25     # the fresh lane's (lower) relevance floors
# fresh_floor_bm25 = 1.5
# sim_floor_ml = 0.2           # ... or this multilingual cosine (dense_ml)
# fresh_floor_ml = 0.2
# fresh_days = 30.0            # how far back the fresh lane looks
# hot_decay = 0.5              # weight of a page selected n turns ago: hot_decay ** n
# edge_decay = 0.98            # co-selection edge decay per recorded turn
# edge_threshold = 1.5         # minimum edge weight for the edges lane
# info_buffer_entries = 10     # newest buffer entries in <info>
# conversation_turns = 8       # turns remembered per conversation
# conversation_ttl_hours = 24.0

[memory.v2]
# The legacy v2 engine. Its substrate twins (dense_weight, bm25_k1, ...) are the
# historical defaults for [memory.substrate]; `memory config migrate` copies
# values you set here. It answers turns only while v3 is not live.
enabled = true
# activation_hit_weight = 1.0     # seed: the turn's search hits (over the best)
# activation_entity_weight = 0.8  #       and the pages it names
# activation_link_weight = 0.5    # spread over authored links,
# activation_edge_weight = 0.3    #   and learned co-selection edges,
# activation_decay = 0.5          #   decaying this much per hop,
# activation_hops = 2             #   for this many hops
# router_threshold = 0.4          # pages at or over this activation go on
# rerank_candidates = 16          #   at most this many, to the reranker
# rerank_weight = 0.2             # share of the dense cosine to the best chunk
# router_max_pages = 8            # pages on the block
# router_budget_chars = 2400      # size of its <memory> block

[memory.substrate]
# Substrate tunables. Each key falls back to its memory.v2 twin.
# dense_weight + sparse_weight must sum to 1.
# dense_weight = 0.3
# sparse_weight = 0.7
# bm25_k1 = 1.2
# bm25_b = 0.75
# embedding_model = "all-MiniLM-L6-v2-int8"   # v2 twin: embed_model
# consolidation_interval_hours = 8.0
# consolidation_max_buffer_lines = 100
# sweep_enabled = false       # capture from conversations once they are quiet (needs a model)
# sweep_idle_minutes = 10.0   # how quiet: the sweep's debounce
# retrospective_hours = 24.0  # read every conversation's unread messages this often (0: never)
# curation_mode = "auto"      # off | review (an operator decides everything) | auto
# auto_apply_min_confidence = 0.7
# auto_apply_max_risk = "low" # low | medium | high
# sessions_retention_days = 0 # the conversation log keeps messages this long (0: forever)
# fusion = "minmax"       # how dense and BM25 rankings combine: "minmax" or "rrf"
# multilingual_model = "use-multilingual-v3"   # second dense vector (dense_ml): the bundled
#                         # USE, "off", a fastembed model name or "path:/folder"
# multilingual_weight = 0.3   # its fusion weight, beside dense + sparse
# dense_min_span = 0.3        # min-max guards: scale a dense signal by at least this
# multilingual_min_span = 0.0 #   cosine span, so a model blind to the query's language
# sparse_min_coverage = 0.15  #   stays quiet; BM25 fades below this share of its ideal score
# dense_anchor_floor = 0.3    # MiniLM's best page at this cosine or more stays in the top 5
# multilingual_page_context = 384   # a page of several chunks but at most this many
#                         # multilingual tokens adds its whole-page vector to each
#                         # chunk's dense_ml vector; 0 turns it off (re-indexes)
# ingest_max_page_bytes = 262144   # `memory ingest` refuses larger pages
# consolidation_batch_entries = 50  # entries per consolidation run
# consolidation_planner = "auto"    # "deterministic", "llm", or "auto" (llm when
#                                   # [memory.substrate.llm] names a model)
# consolidation_page_facts = 24     # facts a page takes before a continuation page
# consolidation_search_floor = 0.55 # the filer's search step: best cosine, and
# consolidation_search_margin = 0.1 #   the lead over the runner-up
# facts_per_chunk = 3               # filed facts per index chunk (re-indexes)
# scanner_detector = true           # the scanner's learned second opinion beside
#                                   # its rules (loads the multilingual model on writes)
#
# [memory.substrate.qdrant]
# url = "http://localhost:6333"   # a Qdrant server instead of the embedded store
# api_key = "..."
# collection = "memory_pages"
#
# [memory.substrate.compute]        # how the embedding models run
# providers = ["CPUExecutionProvider"]   # ONNX Runtime providers for MiniLM, in order
# batch_size = 64                   # chunks per indexing batch
# concurrent = false                # MiniLM and USE side by side while bulk indexing
#
# [memory.substrate.llm]            # any OpenAI-compatible chat-completions endpoint
# base_url = "http://localhost:11434/v1"
# model = "llama3.1"
# api_key_env = "MEMORY_LLM_API_KEY"   # the environment variable holding the key
# timeout_s = 60.0
# max_output_tokens = 4096

[memory.limits]
# What one call may carry; over a limit is refused before anything is stored.
# fact_bytes = 32768            # a remembered fact
# query_bytes = 8192            # a search query; also how much of a card message
#                               # retrieval reads (its last 8 KiB)
# message_bytes = 262144        # a card message
# request_bytes = 1048576       # an HTTP request body (other than ingest)
# ingest_request_bytes = 67108864   # an ingest request body (pages: ingest_max_page_bytes)
# info_chars = 6000             # the <info> block
"""
