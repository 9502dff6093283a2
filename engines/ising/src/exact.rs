//! Exact results: Onsager's solution and exact enumeration of small tori.
