"""Verification gates, quick fixes, fix-attempt tracking, optional LLM judge, episodic memory."""
