"""The HTTP API's routers, one per area under `/v1/`; `service.app` mounts them."""
