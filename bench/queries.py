"""Queries a user might type, per catalogue tool, for Recall@k in ``bench/gateway.py``.

Written as a person asks, not copied from the descriptions. A test keeps this in step with
the catalogue: every tool needs at least three.
"""

QUERIES: dict[str, list[str]] = {
    "catalogue_list": [
        "show me everything this server can do",
        "browse all available tools grouped by area",
        "which tools exist for campaigns",
    ],
    "server_info": [
        "what version of deepr is running",
        "which gateway mode and protocol is this connection using",
        "where does the server keep its data",
    ],
}
