"""A parsed `GET /metrics` page, read with prometheus-client's own parser."""

from __future__ import annotations

from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families


class Scrape:
    """One parsed scrape: `value(name, **labels)` sums the matching samples (0.0 when none)."""

    def __init__(self, text: str) -> None:
        self.samples = [s for family in text_string_to_metric_families(text) for s in family.samples]

    def value(self, name: str, **labels: str) -> float:
        return sum(s.value for s in self.samples
                   if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))

    def names(self) -> set[str]:
        return {s.name for s in self.samples}

    def label_values(self, name: str, label: str) -> set[str]:
        return {s.labels[label] for s in self.samples if s.name == name and label in s.labels}


def scrape(proxy: Any, **headers: str) -> Scrape:
    response = httpx.get(proxy.url + "/metrics", headers=headers)
    assert response.status_code == 200, response.text
    return Scrape(response.text)
