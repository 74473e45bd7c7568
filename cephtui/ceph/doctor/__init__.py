"""The Doctor: from a raised health check to what it means on this cluster and how to fix it."""
