"""Stage 7: findings → what users read (one module per output format)."""
