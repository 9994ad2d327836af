"""Text analysis: how record and query text become index terms (NFKC, case folding, stemming,
irregular forms, code words, Japanese bigrams and sentences). The record store indexes with it
(memcli.store.postings) and search reads queries with it (memcli.search), so it sits below both."""
