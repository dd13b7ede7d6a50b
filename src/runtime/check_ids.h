/* SPDX-License-Identifier: GPL-2.0 */
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
	X(MT_RCU_TORN, "an RCU reader sees each index as before or after each write")              \
	X(KMT_BUG, "lib/maple_tree.c's own checks hold (mt_validate, MT_BUG_ON...)")               \
	X(TREE_BACKENDS_DIFFER,                                                                    \
	  "two tree backends answer every operation alike, holding the same")                      \
	/* concurrency family (sched, sync) */                                                     \
	X(SCHED_DEADLOCK, "some fiber can always run while any is alive")                          \
	X(SCHED_STEP_LIMIT, "a program ends within SCHED_MAX_POINTS scheduling points")            \
	X(SYNC_LOCK_ORDER, "locks are taken in the declared class order")                          \
	X(SYNC_HELD_AT_EXIT, "a fiber ends holding no lock and outside RCU")                       \
	X(SYNC_SLEEP_IN_RCU, "no sleeping lock is taken inside an RCU read section")               \
	X(SYNC_UNLOCK_NOT_HELD, "only a holder releases a lock")                                   \
	X(SYNC_RWSEM_STATE, "an rwsem is held by one writer or by readers, never both")            \
	X(SYNC_RCU_UNBALANCED, "rcu_read_unlock matches an rcu_read_lock")                         \
	X(SYNC_VMA_LOCK,                                                                           \
	  "VMA write locks need the mmap write lock; no reader holds a write-locked VMA")          \
	X(SYNC_MMAP_UNLOCKED,                                                                      \
	  "what the kernel does under the mmap lock holds it (mmap_assert_locked)")                \
	X(SYNC_MMAP_NOT_WRITE_LOCKED,                                                              \
	  "what changes VMAs holds the mmap write lock (mmap_assert_write_locked)")                \
	X(SYNC_VMA_UNLOCKED, "a fault or a walk of a VMA's pages holds its lock or the mmap lock " \
			     "(vma_assert_locked)")                                                \
	X(SYNC_VMA_NOT_WRITE_LOCKED,                                                               \
	  "a VMA whose flags, anon_vma or pages are changed or copied is write-locked")            \
	X(SYNC_TREE_UNLOCKED, "the VMA tree is read under the mmap lock or RCU (find_vma)")        \
	X(SYNC_I_MMAP_UNLOCKED, "a file's i_mmap is read or changed under its i_mmap_rwsem")       \
	X(SYNC_ANON_VMA_UNLOCKED,                                                                  \
	  "an anon_vma's tree of chain entries changes under its root's lock")                     \
	/* VMA family (mm_check.c) */                                                              \
	X(VMA_TREE_INDEX, "a VMA is stored at [vm_start, vm_end - 1]")                             \
	X(VMA_ALIGNED, "vm_start and vm_end are page aligned")                                     \
	X(VMA_EMPTY, "a VMA is not empty")                                                         \
	X(VMA_MM, "a VMA's mm is the mm whose tree holds it")                                      \
	X(VMA_COUNT, "map_count equals the VMAs in the tree")                                      \
	X(VMA_ZERO_ENTRY, "no zero entry is reachable outside fork failure and exit")              \
	X(VMA_LOCK_AT_REST, "at rest no VMA is locked and no mmap lock is held")                   \
	X(VMA_FLAGS,                                                                               \
	  "wipe-on-fork only on private anonymous memory; shared iff shmem/shared file")           \
	X(VMA_PGOFF, "an anonymous private VMA's pgoff is its start page unless mremap moved it")  \
	X(VMA_FILE_LINK, "a file VMA is in its file's i_mmap and only live VMAs are")              \
	X(VMA_I_MMAP_TREE, "a file's i_mmap tree is sound and keys each VMA by its pgoff range")   \
	X(VMA_LOCKED_VM, "an mm's locked_vm counts the pages of its VM_LOCKED VMAs")               \
	/* anon_vma family (mm_check.c) */                                                         \
	X(ANON_AVC_LISTS, "every chain entry is on its VMA's chain and in its anon_vma's tree")    \
	X(ANON_INTERVAL, "a chain entry is keyed by its VMA's page-offset interval")               \
	X(ANON_VMA_IN_CHAIN, "a VMA's anon_vma is in its chain; a chain implies an anon_vma")      \
	X(ANON_NUM_CHILDREN, "num_children equals the anon_vmas naming it parent")                 \
	X(ANON_NUM_ACTIVE, "num_active_vmas equals the VMAs pointing to it")                       \
	X(ANON_SAME_CHAIN, "VMAs that share an anon_vma have equal chain sets")                    \
	X(ANON_ONE_MM, "the VMAs using an anon_vma as their own belong to one process")            \
	X(ANON_REFCOUNT, "refcount is 1 while it has chain entries plus 1 per child root ref")     \
	X(ANON_INTERVAL_TREE, "an anon_vma's tree of chain entries is sound (order, maxima, AVL)") \
	/* page family (mm_check.c) */                                                             \
	X(PAGE_MAPCOUNT, "a page's map count equals the entries mapping it")                       \
	X(PAGE_REFCOUNT, "a page's reference count is its map count (+1 in a page cache)")         \
	X(PAGE_RMAP, "an rmap walk from an anonymous page finds every mapping of it")              \
	X(PAGE_COW, "an anonymous page mapped more than once is mapped read-only")                 \
	X(PAGE_RSS, "an mm's resident counters equal its mapped pages")                            \
	X(PAGE_OUTSIDE_VMA, "no page is mapped outside a VMA, nor writable in a read-only one")    \
	X(PAGE_INDEX, "an anonymous page's index is the page offset it is mapped at")              \
	/* userfaultfd family (uffd.c) */                                                          \
	X(UFFD_FLAGS_CTX, "a VMA has userfaultfd flags exactly when it has a context")             \
	X(UFFD_CTX_REFCOUNT, "a context's refcount is 1 while open plus its fork contexts")        \
	X(UFFD_RELEASED_CTX, "no VMA points to a released or foreign context")                     \
	X(UFFD_FORK_CTX_LEFT, "no fork context outlives its fork, failed or not")                  \
	/* fork family (fork.c) */                                                                 \
	X(FORK_CHILD_DIFFERS, "the child's VMAs are the parent's minus VM_DONTCOPY")               \
	X(FORK_WIPE_NOT_EMPTY, "a wipe-on-fork VMA of the child has no pages and no anon_vma")     \
	X(FORK_CHILD_POINTS_INTO_PARENT, "no object of the child points into the parent")          \
	X(FORK_PARENT_CHANGED, "a failed fork leaves the parent as it was")                        \
	X(FORK_ALGOS_DIFFER, "both fork algorithms build equal children")                          \
	/* rollup family */                                                                        \
	X(ROLLUP_ORDER, "the ranges a rollup reader gathered ascend without overlap")              \
	X(ROLLUP_MISSED, "a rollup gathers every range mapped and unchanged through its read")     \
	X(ROLLUP_SUM, "a rollup with nothing changing equals the sum of per-VMA smaps")            \
	X(ROLLUP_READERS, "with nothing changing both rollup readers agree")                       \
	/* memory family */                                                                        \
	X(MEM_LIVE_MISMATCH, "live objects of a kind equal objects reachable")                     \
	X(MEM_LEAK_AT_END, "nothing is alive at the end of a program")                             \
	/* injected failure of an mm call (fuzz/targets/mm_run.c) */                               \
	X(MM_FAILED_CALL_RESULT, "a call failed by injection returns -ENOMEM (madvise: -EAGAIN)")  \
	X(MM_FAILED_CALL_CHANGED,                                                                  \
	  "a call failed by injection changes no mapping but what the kernel leaves changed")      \
	/* the expectation: what the calls asked (fuzz/as/expect/expect.c) */                      \
	X(MM_EXPECTED_STATE,                                                                       \
	  "each page is mapped with the permissions, sharing, fork flags and offset asked")        \
	X(MM_EXPECTED_UFFD,                                                                        \
	  "each page is registered with the userfaultfd context and modes asked")                  \
	X(MM_EXPECTED_DATA, "each page holds and reads what the writes, forks and files give it")  \
	X(MM_EXPECTED_RESULT,                                                                      \
	  "a call answers what the pages it names decide (madvise free, mlock)")                   \
	/* the kernel's VMA code (kernel/vma/kvma_unit.c) */                                       \
	X(KVMA_BUG, "mm/vma.c's own checks hold (validate_mm, VM_WARN_ON, BUG_ON...)")             \
	X(AS_BACKENDS_DIFFER, "two address-space backends give equal results and hold equal VMAs")
