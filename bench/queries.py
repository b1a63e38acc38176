"""Queries a user might type, per catalogue tool, for Recall@k in ``bench/gateway.py``.

Written as a person asks, not copied from the descriptions. ``tests/gateway/test_queries.py``
keeps this in step with the catalogue: every tool needs at least three.
"""

QUERIES: dict[str, list[str]] = {
    "catalogue_list": [
        "show me everything this server can do",
        "browse all available tools grouped by area",
        "what kinds of tools are there",
    ],
    "server_info": [
        "what version of deepr is running",
        "which gateway mode and protocol is this connection using",
        "where does the server keep its data",
    ],
    "campaign_start": [
        "start a research campaign",
        "kick off an investigation into undersea cables",
        "research this question in the background for me",
    ],
    "campaign_status": [
        "how far along is my research job",
        "check the progress of campaign c123",
        "what phase is the investigation in and what has it cost so far",
    ],
    "campaign_list": [
        "show all my research jobs",
        "which investigations have finished",
        "list campaigns that are still running",
    ],
    "campaign_cancel": [
        "stop this research job for good",
        "kill the running investigation",
        "abort the campaign I started",
    ],
    "campaign_pause": [
        "pause my research for now",
        "hold the investigation after the current step",
        "temporarily stop the campaign so I can continue later",
    ],
    "campaign_resume": [
        "continue a paused investigation",
        "pick up the research where it stopped",
        "unpause the campaign",
    ],
    "campaign_plan": [
        "what sub-questions is the research working on",
        "show the research plan",
        "how is the question being broken down",
    ],
    "campaign_beliefs": [
        "what has the research found so far",
        "show the findings with confidence levels",
        "which claims does the investigation believe and what is missing",
    ],
    "campaign_report": [
        "give me the final write-up",
        "get the finished cited report in markdown",
        "show the results of the investigation",
    ],
    "campaign_sources": [
        "which documents does the report cite",
        "list the references behind the findings",
        "what are citation 3 and 4 pointing at",
    ],
    "campaign_follow_up": [
        "ask a further question building on the last research",
        "dig deeper into what the previous campaign found",
        "follow up on an earlier investigation",
    ],
    "campaign_wait": [
        "tell me when the research changes without polling",
        "block until the job finishes",
        "follow the campaign until it needs a decision",
    ],
    "budget_decide": [
        "approve spending more money on the research",
        "answer the budget question and allow a higher limit",
        "the campaign is waiting for approval, optimize for cost instead",
    ],
    "budget_get": [
        "how much of the budget is left",
        "show the spending limit and past approvals",
        "what budget decisions were made for this job",
    ],
    "budget_set": [
        "raise the dollar limit before it runs out",
        "change how much the research may spend",
        "lower the budget of a running campaign",
    ],
    "cost_estimate": [
        "how much would researching this question cost",
        "price a research job before starting it",
        "estimate dollars per step with my model",
    ],
    "cost_report": [
        "how much money have I spent in total",
        "break down the tokens and dollars per step",
        "which campaigns were the most expensive",
    ],
    "corpus_add": [
        "index my folder of markdown notes",
        "load these pdf documents so research can use them",
        "import files into the knowledge base",
    ],
    "corpus_search": [
        "find passages that mention gutta-percha",
        "full text search over my documents",
        "look up what the docs say about repeaters",
    ],
    "corpus_list": [
        "which documents are indexed",
        "show the files research can draw on",
        "how many passages does each document have",
    ],
    "corpus_remove": [
        "drop this document from the index",
        "delete a file from the knowledge base",
        "stop using an outdated document in research",
    ],
    "corpus_passage": [
        "show me the full text behind a citation",
        "open passage p1234 and its heading",
        "read one cited excerpt in full",
    ],
    "sandbox_list": [
        "what files did the campaign produce",
        "show the working directory of the research",
        "list the notes and artefacts of a job",
    ],
    "sandbox_read": [
        "open the intermediate notes for sub-question one",
        "read plan.md from the campaign folder",
        "show the first kilobyte of a large artefact",
    ],
    "sandbox_write": [
        "save my own notes next to the research",
        "create a file in the campaign working folder",
        "append a draft paragraph to a file in the workspace",
    ],
    "sandbox_delete": [
        "remove a scratch file from the workspace",
        "clean up a file the campaign wrote",
        "erase an empty folder in the research directory",
    ],
    "sandbox_extract": [
        "give me only the final report and a list of artefacts",
        "collect the deliverables without the intermediate files",
        "export the result of the campaign folder",
    ],
    "web_search": [
        "search the internet for recent news on cable cuts",
        "look this up on the web",
        "find web pages about submarine cables",
    ],
    "web_fetch": [
        "download this url as text",
        "read the page at https://example.org and add it to my documents",
        "grab the contents of a web page",
    ],
    "expert_create": [
        "create a knowledge base about submarine cables",
        "set up a specialist that remembers what research found",
        "make a new expert and seed it with a question",
    ],
    "expert_list": [
        "which experts exist",
        "show my knowledge bases",
        "list the specialists and how much they know",
    ],
    "expert_profile": [
        "what does the cables expert cover",
        "summary of an expert's knowledge and campaigns",
        "describe this specialist",
    ],
    "expert_query": [
        "ask the expert why the 1858 cable failed",
        "what does my knowledge base say about repeaters",
        "answer from the specialist's beliefs with citations",
    ],
    "expert_gaps": [
        "what doesn't the expert know yet",
        "show the open questions of the knowledge base",
        "which unknowns remain for this specialist",
    ],
    "expert_fill_gaps": [
        "research the missing pieces of the expert's knowledge",
        "fill in what the specialist could not answer",
        "run a campaign on the expert's open questions",
    ],
    "expert_delete": [
        "remove the cables expert",
        "delete a knowledge base",
        "get rid of a specialist I no longer need",
    ],
    "campaign_share": [
        "share a campaign with another agent",
        "let the other agents of my team see this research",
        "give other principals access to the campaign",
    ],
    "campaign_unshare": [
        "stop sharing this campaign with a principal",
        "revoke another agent's access to my research",
        "take back the share I gave my team",
    ],
    "campaign_delete": [
        "remove an old finished research job",
        "delete the campaign and its files",
        "clean up a cancelled investigation",
    ],
    "cost_pricing": [
        "how much does the configured model cost per token",
        "what is the price per million tokens",
        "show the pricing used for budgets",
    ],
    "object_get": [
        "the result was truncated, show me the rest of it",
        "read item 3 of the stored output",
        "open one field of a big tool result by its ref",
    ],
    "object_slice": [
        "next page of the truncated results list",
        "give me items 20 to 40 of that stored output",
        "read characters 5000 to 9000 of the long text result",
    ],
}
