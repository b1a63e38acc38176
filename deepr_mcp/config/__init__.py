"""Settings in one place: the ``Settings`` model and its sections, loaded defaults < TOML < ``DEEPR_*`` < CLI.

``settings.py`` holds the model and its loading; each section's types sit in a module named for it
(``auth``, ``upstreams``, ``store``; the small ones in ``sections``).
"""

from deepr_mcp.config.sections import GatewayMode, ResearchSettings
from deepr_mcp.config.settings import CONFIG_ENV, Settings, default_config_file, default_data_dir, load_settings

__all__ = [
    "CONFIG_ENV",
    "GatewayMode",
    "ResearchSettings",
    "Settings",
    "default_config_file",
    "default_data_dir",
    "load_settings",
]
