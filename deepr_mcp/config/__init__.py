"""Settings in one place: the ``Settings`` model and its sections, loaded defaults < TOML < ``DEEPR_*`` < CLI.

``settings.py`` holds the model and its loading; each section's types sit in a module named for it
(``auth``, ``upstreams``, ``store``; the small ones in ``sections``). Every section model is handed on
here, so ``from deepr_mcp.config import CorpusSettings`` reads as before.
"""

from deepr_mcp.config.auth import AuthSettings, OAuthSettings, PrincipalSettings
from deepr_mcp.config.sections import (
    AnthropicSettings,
    AppsSettings,
    BudgetSettings,
    CorpusSettings,
    GatewayMode,
    GatewaySettings,
    HttpSettings,
    JobSettings,
    ObjectSettings,
    OpenAISettings,
    PriceSettings,
    ResearchSettings,
    SandboxSettings,
    SubscriptionSettings,
    WebSettings,
)
from deepr_mcp.config.settings import CONFIG_ENV, Settings, default_config_file, default_data_dir, load_settings
from deepr_mcp.config.store import StoreSettings
from deepr_mcp.config.upstreams import ResearchSourceSettings, UpstreamSettings

__all__ = [
    "CONFIG_ENV",
    "AnthropicSettings",
    "AppsSettings",
    "AuthSettings",
    "BudgetSettings",
    "CorpusSettings",
    "GatewayMode",
    "GatewaySettings",
    "HttpSettings",
    "JobSettings",
    "OAuthSettings",
    "ObjectSettings",
    "OpenAISettings",
    "PriceSettings",
    "PrincipalSettings",
    "ResearchSettings",
    "ResearchSourceSettings",
    "SandboxSettings",
    "Settings",
    "StoreSettings",
    "SubscriptionSettings",
    "UpstreamSettings",
    "WebSettings",
    "default_config_file",
    "default_data_dir",
    "load_settings",
]
