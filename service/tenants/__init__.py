"""Many workspaces in one service: ids, tokens, the pool of open workspaces and
the app that routes `/w/{workspace}/…` to each (see docs/service.md)."""
