"""The explicit registry of lint rules: to add a rule, write its class and list it here."""

from __future__ import annotations

from memcli.lint.rules.anchors import AnchorDrift
from memcli.lint.rules.base import Rule, Scope
from memcli.lint.rules.content import DecisionLedger, NewKnowledgeInvoked, UnknownSlugReference
from memcli.lint.rules.location import InvalidSlug, UnknownLocation
from memcli.lint.rules.references import DanglingReference, ReplacedByCycle, ReplacedChainLong
from memcli.lint.rules.schema import (
    DeprecatedField,
    InvalidField,
    InvalidStatus,
    MissingField,
    Parse,
    ReplacedByInconsistent,
    UnknownField,
)
from memcli.lint.rules.secret import Secret
from memcli.lint.rules.similar import SimilarSlugs
from memcli.lint.rules.size import DescriptionTooLong, LowValueLarge, SourcesOverflow, TooLarge
from memcli.lint.rules.skills import SkillInvalid, SkillNameTaken, SkillUnfit
from memcli.lint.rules.tool import SlugExists, SourceNotProvided, WorkflowReadonly
from memcli.lint.rules.trust import AgentDirective, InvisibleText
from memcli.lint.rules.yamlfeature import YamlFeature

RULES: tuple[Rule, ...] = (
    # errors
    Parse(),
    MissingField(),
    InvalidField(),
    InvalidSlug(),
    InvalidStatus(),
    ReplacedByInconsistent(),
    DanglingReference(),
    ReplacedByCycle(),
    DescriptionTooLong(),
    TooLarge(),
    UnknownLocation(),
    WorkflowReadonly(),
    SlugExists(),
    Secret(),
    SourceNotProvided(),
    NewKnowledgeInvoked(),
    UnknownSlugReference(),
    DecisionLedger(),
    SkillInvalid(),
    AgentDirective(),
    InvisibleText(),
    YamlFeature(),
    # warnings
    LowValueLarge(),
    SourcesOverflow(),
    SimilarSlugs(),
    ReplacedChainLong(),
    UnknownField(),
    DeprecatedField(),
    AnchorDrift(),
    SkillUnfit(),
    SkillNameTaken(),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
FILE_RULES = tuple(r for r in RULES if r.scope is Scope.FILE and not isinstance(r, UnknownLocation))
WORKSPACE_RULES = tuple(r for r in RULES if r.scope is Scope.WORKSPACE)
TOOL_RULES = tuple(r for r in RULES if r.scope is Scope.TOOL)
UNKNOWN_LOCATION: UnknownLocation = next(r for r in RULES if isinstance(r, UnknownLocation))
