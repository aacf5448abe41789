"""Text pictures of a Key Harvest state (placeholder, replaced below)."""


def render_text(game, viewer):
    return f"Key Harvest game (viewer {viewer})"
