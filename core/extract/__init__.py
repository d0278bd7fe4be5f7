"""The extractors: the rule-based one (``rules``, its phrasings in
``data/rules``, read by ``ruleset``) and the optional LLM one (``llm``). The
language knowledge they read text with (times, amounts, numerals) is
``memdesk.lang``'s."""
