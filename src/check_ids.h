/*
 * The invariant catalogue: every check the model can fail, with its stable
 * identifier. Triage buckets crashes by these names, so never rename one;
 * add new ones at the end of their family.
 *
 * X(ID, one-line meaning)
 */
#define CHECK_IDS(X)                                                                               \
	/* tree family (mtree_validate) */                                                         \
	X(MT_PIVOT_ORDER, "pivots of a node strictly ascend")                                      \
	X(MT_PIVOT_RANGE, "every pivot lies inside the node's [min, max)")                         \
	X(MT_SLOT_UNUSED, "slots and pivots past a node's end are clear")                          \
	X(MT_PARENT_LINK, "a child's parent pointer names the node that holds it")                 \
	X(MT_PARENT_SLOT, "a child's parent slot is the slot that holds it")                       \
	X(MT_LEAF_DEPTH, "every leaf is at the tree's height")                                     \
	X(MT_OCCUPANCY, "non-root nodes hold at least MT_MIN_SLOTS slots")                         \
	X(MT_GAP, "an internal node's gap equals its child's largest empty range")                 \
	X(MT_ADJACENT_EMPTY, "no two adjacent ranges are both empty")                              \
	X(MT_CHILD_NULL, "internal nodes have no empty child slot")                                \
	X(MT_EMPTY_ROOT, "a tree with no entries has no nodes")                                    \
	X(MT_INTERNAL_ENTRY, "no reserved value other than the zero entry is stored")              \
	X(MT_REF_MISMATCH, "the tree holds exactly what the reference map holds")                  \
	X(MT_DUP_MISMATCH, "a duplicated tree equals its source, node for node")                   \
	X(MT_DUP_SOURCE_CHANGED, "a duplication leaves its source unchanged")                      \
	X(MT_GAP_SEARCH, "free-range search returns the range a brute force finds")                \
	X(MT_WALK, "cursor and find visit entries in order, each once")                            \
	X(MT_OP_RESULT, "an operation returns what the reference says it must")                    \
	X(MT_FAILED_WRITE_CHANGED, "a write that fails leaves the tree as it was")                 \
	X(MT_RCU_TORN, "an RCU reader sees each index as before or after each write")   \
	/* concurrency family (sched, sync) */                                          \
	X(SCHED_DEADLOCK, "some fiber can always run while any is alive")               \
	X(SCHED_STEP_LIMIT, "a program ends within SCHED_MAX_POINTS scheduling points") \
	X(SYNC_LOCK_ORDER, "locks are taken in the declared class order")               \
	X(SYNC_HELD_AT_EXIT, "a fiber ends holding no lock and outside RCU")            \
	X(SYNC_SLEEP_IN_RCU, "no sleeping lock is taken inside an RCU read section")     \
	X(SYNC_UNLOCK_NOT_HELD, "only a holder releases a lock")                        \
	X(SYNC_RCU_UNBALANCED, "rcu_read_unlock matches an rcu_read_lock")              \
	X(SYNC_VMA_LOCK, "VMA write locks need the mmap write lock; no reader holds a write-locked VMA") \
	/* memory family */                                                                        \
	X(MEM_LIVE_MISMATCH, "live objects of a kind equal objects reachable")                     \
	X(MEM_LEAK_AT_END, "nothing is alive at the end of a program")
