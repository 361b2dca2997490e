package netsim

import (
	"cmp"
	"container/heap"
)

// Queue is a discrete-event simulator's agenda: events popped in time
// order, events of one time in the order they were pushed, so that a run
// is deterministic.
type Queue[T cmp.Ordered, E any] struct {
	h   qHeap[T, E]
	seq uint64
}

type qItem[T cmp.Ordered, E any] struct {
	at  T
	seq uint64
	e   E
}

type qHeap[T cmp.Ordered, E any] []qItem[T, E]

func (h qHeap[T, E]) Len() int { return len(h) }
func (h qHeap[T, E]) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h qHeap[T, E]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *qHeap[T, E]) Push(x any)   { *h = append(*h, x.(qItem[T, E])) }
func (h *qHeap[T, E]) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = qItem[T, E]{}
	*h = old[:len(old)-1]
	return it
}

// Push schedules e at time at.
func (q *Queue[T, E]) Push(at T, e E) {
	heap.Push(&q.h, qItem[T, E]{at: at, seq: q.seq, e: e})
	q.seq++
}

// Pop takes the earliest event; Len must be nonzero.
func (q *Queue[T, E]) Pop() (T, E) {
	it := heap.Pop(&q.h).(qItem[T, E])
	return it.at, it.e
}

// Len is the number of events waiting.
func (q *Queue[T, E]) Len() int { return q.h.Len() }
