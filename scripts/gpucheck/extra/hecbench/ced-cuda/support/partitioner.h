/*
 * gpucheck stand-in for Chai's support/partitioner.h, which the HeCBench
 * ced-cuda Makefile expects but which is not part of the suite copy in
 * shared/suites/hecbench. Same interface and semantics as the Chai original
 * (Copyright (c) 2016 University of Cordoba and University of Illinois,
 * NCSA-style license): static partitioning when 0 <= alpha <= 1 (the host
 * takes the first n_tasks*alpha tasks), dynamic partitioning otherwise.
 */
#ifndef _PARTITIONER_H_
#define _PARTITIONER_H_

#include <atomic>
#include <iostream>

#define STATIC_PARTITIONING 0
#define DYNAMIC_PARTITIONING 1

typedef struct CoarseGrainPartitioner {
    int n_tasks;
    int strategy;
    union {
        int cut;                    // static partitioning
        std::atomic_int *worklist;  // dynamic partitioning
    };
    int cpu_current;
    int gpu_current;
} CoarseGrainPartitioner;

inline CoarseGrainPartitioner partitioner_create(int n_tasks, float alpha, std::atomic_int *worklist) {
    CoarseGrainPartitioner p;
    p.n_tasks = n_tasks;
    if(alpha >= 0.0 && alpha <= 1.0) {
        p.strategy = STATIC_PARTITIONING;
        p.cut      = p.n_tasks * alpha;
    } else {
        p.strategy = DYNAMIC_PARTITIONING;
        p.worklist = worklist;
    }
    return p;
}

inline int cpu_first(CoarseGrainPartitioner *p) {
    if(p->strategy == DYNAMIC_PARTITIONING) p->cpu_current = p->worklist->fetch_add(1);
    else p->cpu_current = 0;
    return p->cpu_current;
}

inline int gpu_first(CoarseGrainPartitioner *p) {
    if(p->strategy == DYNAMIC_PARTITIONING) p->gpu_current = p->worklist->fetch_add(1);
    else p->gpu_current = p->cut;
    return p->gpu_current;
}

inline bool cpu_more(CoarseGrainPartitioner *p) {
    if(p->strategy == DYNAMIC_PARTITIONING) return p->cpu_current < p->n_tasks;
    return p->cpu_current < p->cut;
}

inline bool gpu_more(CoarseGrainPartitioner *p) {
    return p->gpu_current < p->n_tasks;
}

inline int cpu_next(CoarseGrainPartitioner *p) {
    if(p->strategy == DYNAMIC_PARTITIONING) p->cpu_current = p->worklist->fetch_add(1);
    else p->cpu_current += 1;
    return p->cpu_current;
}

inline int gpu_next(CoarseGrainPartitioner *p) {
    if(p->strategy == DYNAMIC_PARTITIONING) p->gpu_current = p->worklist->fetch_add(1);
    else p->gpu_current += 1;
    return p->gpu_current;
}

#endif
