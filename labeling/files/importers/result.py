"""What an import did: rows stored, placeholder rows created, warnings for the user."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ImportResult:
    """What an import did: rows stored, placeholder rows created, warnings for the user."""

    kind: str
    rows: int = 0
    placeholders: int = 0
    updated: int = 0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the command line."""
        text = f"imported {self.rows} {self.kind} rows"
        if self.updated:
            text += f" ({self.updated} updated)"
        if self.placeholders:
            text += f", {self.placeholders} placeholder ids"
        return text

    def add_placeholders(self, queries: int, chunks: int) -> None:
        """Count the placeholder queries and chunks an import added, with a warning."""
        self.placeholders = queries + chunks
        if self.placeholders:
            self.warnings.append(
                f"{queries} unknown query ids and {chunks} unknown chunk ids were added as "
                "placeholders (use strict to reject them)"
            )
